"""Write stage: kit folders written atomically with their manifest, and what a kit was made from (up to date or not)."""
