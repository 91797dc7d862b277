"""What the server does around its tables: players and accounts, quotas, bots, ratings,
housekeeping."""
