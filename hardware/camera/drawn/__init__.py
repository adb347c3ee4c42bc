"""Our own card deck, drawn by code, for the built-in virtual camera (`hardware/camera/virtual.py`).

`faces.py` draws every face and the back (`drawn_faces`) and says where a face's corner index
lies (`index_box`); `suits.py` draws the four suit symbols. Training draws on the same deck
(`training/art/artwork.py`) and on its typeface decks (`training/art/typefaces.py`).
"""
