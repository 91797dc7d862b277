"""The client address the limits count: the socket's, or a trusted proxy's visitor.

``X-Forwarded-For`` is honoured only when the connection comes from an address named
in ``--trusted-proxies`` (uvicorn's proxy-headers support); by default nobody is trusted,
so anyone who writes the header is still counted as themselves.  The limit used to see
it here is the cap on connections per address.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bodoge.server.cli import proxy_list
from tests.support.client import Client
from tests.support.live_server import LiveServer

ONE_PER_ADDRESS = ("--bot-delay", "0", "--max-connections-per-address", "1")


async def _from(server: LiveServer, forwarded: str) -> Client:
    ws = await connect(
        server.ws_url,
        compression=None,
        open_timeout=20,
        additional_headers={"X-Forwarded-For": forwarded},
    )
    client = Client(ws)
    with contextlib.suppress(ConnectionError, ConnectionClosed):  # answered, or closed with 4029
        await client.request("ping", timeout=10)
    return client


async def _refused(client: Client) -> bool:
    if not client.closed.done():
        return False
    codes = [e["code"] for e in client.of_type("error")]
    return client.closed.result() == 4029 and codes == ["too_many_connections"]


async def test_forwarded_addresses_are_ignored_by_default(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=ONE_PER_ADDRESS)
    first = await _from(server, "203.0.113.1")
    # Another "visitor" in the header is still this socket's address: one too many.
    second = await _from(server, "203.0.113.2")
    assert await _refused(second)
    assert not first.closed.done()
    await first.close()


async def test_a_trusted_proxy_names_the_visitor(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=(*ONE_PER_ADDRESS, "--trusted-proxies", "127.0.0.0/8"))
    ann = await _from(server, "203.0.113.1")
    bob = await _from(server, "203.0.113.2")  # another visitor behind the same proxy
    assert not await _refused(bob)
    again = await _from(server, "198.51.100.9, 203.0.113.1")  # the proxy appended Ann's
    assert await _refused(again)
    for client in (ann, bob):
        await client.close()


async def test_a_proxy_not_named_is_not_trusted(
    make_live_server: Callable[..., LiveServer],
) -> None:
    server = make_live_server(args=(*ONE_PER_ADDRESS, "--trusted-proxies", "10.0.0.0/8"))
    first = await _from(server, "203.0.113.1")
    assert await _refused(await _from(server, "203.0.113.2"))
    await first.close()


@pytest.mark.parametrize("bad", ["*", "localhost", "10.0.0.0/33", ""])
def test_trusted_proxies_are_addresses_or_networks(bad: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        proxy_list(bad)
