"""Sub-commands of `dealer-assist`: each module defines `register(subparsers)`.

A module registers its parser with `set_defaults(func=...)`; `func(args)` returns the exit status.
"""
