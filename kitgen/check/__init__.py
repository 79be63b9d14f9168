"""Check stage: what the schema cannot say, computed from the card data (hands, sets, tables, replays)."""
