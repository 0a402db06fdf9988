"""The casino floor: tables forward their journals to one PostgreSQL database."""
