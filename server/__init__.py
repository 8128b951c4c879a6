"""Lumin's asyncio websocket server: rooms, lobby, event store, bots, metrics and logs."""
