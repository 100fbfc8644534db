"""Checkpoints: the bytes a turn's changes replaced, kept so a rewind can put them back."""
