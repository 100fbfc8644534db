"""Model providers: each streams `ModelEvent`s for one model request."""
