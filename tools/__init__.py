"""Developer commands run from a checkout (`python tools/<name>.py`); the wheel does not carry
them, and the runtime package never imports them.

- `update_catalogs.py`: add the new message ids of the pages, scripts and server texts to every
  `.po` catalog in `dealer_assist/i18n/`, untranslated.
"""
