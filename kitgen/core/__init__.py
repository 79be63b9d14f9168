"""Shared vocabulary below every stage: errors, units, the display list, printing choices, atomic files, the cache. Imports nothing of kitgen above it."""
