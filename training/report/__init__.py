"""A training run's figures (report.json) and the dense-fan choice set models are compared on."""
