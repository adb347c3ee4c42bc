"""The training samples: the finder's pictures, the reader's crops, labelled photographs."""
