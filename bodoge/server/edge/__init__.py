"""The HTTP and WebSocket edge: routes, pages, the account API and one Connection per socket."""
