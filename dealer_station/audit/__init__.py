"""The journal: hash-chained, keyed records of every fact, and what is built from them."""
