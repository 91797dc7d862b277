"""bodoge: a self-hostable online table for Tagiron and Illustori."""

__version__ = "0.1.0"
