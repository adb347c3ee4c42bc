"""FastAPI: the public table display, the supervisor console, the regulator view."""
