"""Everything that connects to Lumin from outside: the Python client library, bots over the
network, the load generator and the browser client."""
