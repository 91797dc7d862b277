"""Relay: a tiny game that exists only for tests (:mod:`tests.games.relay.game`)."""
