"""Flash 8: the real-time sliding-electron race and its timed solo mode."""
