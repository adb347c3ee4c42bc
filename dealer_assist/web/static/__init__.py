"""The display's and the console's static files (a package only so that they ship in the wheel)."""
