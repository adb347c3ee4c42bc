"""The card art training draws on: Debian's decks, typefaces, corner indices, surfaces."""
