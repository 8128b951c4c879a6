"""Checks of Lumin's deployment files (deploy/), run where there is no Docker engine and no
Kubernetes cluster."""
