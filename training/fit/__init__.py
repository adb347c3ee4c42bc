"""The networks, their training loop and export, and one module per `vision train` mode."""
