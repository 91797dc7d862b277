"""Cluster mode's end in the server: tables another process runs, mirrored and
played through this one."""
