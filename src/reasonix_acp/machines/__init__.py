"""One synchronous `transitions.Machine` per module; each table is data at the top of its file."""
