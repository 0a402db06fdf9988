"""Table-games accounting as the count room does it: chips by denomination, slips, the drop,
and the win figures (statistical, computed, theoretical). Pure: no database, Qt or PDF."""
