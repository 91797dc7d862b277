"""The table runtime: live tables, their seats, chat, timers, rendering and fan-out;
it imports nothing above it."""
