"""The stdio transport, the asyncio connection (the only I/O), the routes and what initialize advertises."""
