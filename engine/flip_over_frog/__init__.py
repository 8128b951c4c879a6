"""Flip Over Frog: secret colours, hands of three, frogs that flip their neighbours."""
