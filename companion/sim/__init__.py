"""Simulated tables: the scene generator (photo-like frames with their truth) and the virtual camera."""
