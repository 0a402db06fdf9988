"""PySide6 views over the table service. The only package that imports Qt."""
