"""The overhead camera: frame sources and the card recognizer."""
