"""The learned recognizer's model: its two network files and the one place their shapes live."""
