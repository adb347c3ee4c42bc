"""The display's and the console's scripts and the display's styles (the pages' stylesheet and the
icon are both apps': accounts/static/); a package only so that they ship in the wheel."""
