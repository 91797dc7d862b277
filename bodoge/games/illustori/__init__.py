"""Illustori: picture shiritori with votes (イラストリー on Board Game Arena)."""
