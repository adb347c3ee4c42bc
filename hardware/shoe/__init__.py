"""The card shoe: sans-IO protocol codec, serial link, emulator."""
