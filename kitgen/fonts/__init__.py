"""The fonts kitgen prints with (the .ttf files and their licences live here) and their registry."""
