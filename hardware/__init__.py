"""Device drivers as a small library. Knows no baccarat application; never imports dealer_assist."""
