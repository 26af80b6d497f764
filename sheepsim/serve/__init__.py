"""``sheepsim serve``: The Sheep Race at the table, as a web page on this computer.

One static page (HTML, CSS, plain JavaScript and SVG shipped in ``static/``: no build
step, no CDN, works offline) and a JSON API over the standard library's threading HTTP
server. ``GET /api/race/odds|ev|advise|move`` take the CLI's options as query parameters
and answer exactly what ``sheepsim race odds|ev|advise|move --format json`` prints for them
(:mod:`sheepsim.serve.api` runs the same command); ``GET /api/race/rules`` gives the
lanes, cards, payoffs and dice the page draws.

Registering the command imports nothing heavy: the server and the solver are imported
when it runs.
"""

from __future__ import annotations

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(subparsers) -> None:
    """Add the top-level ``serve`` command."""
    from sheepsim.serve.api import ANSWERS_KEPT  # the standard library's modules only

    p = subparsers.add_parser(
        "serve", help="a web page for the race in front of you: odds, best bets, best pace",
        description="Serve a page (and its JSON API) that gives, for a Sheep Race in "
                    "progress, P(1st/2nd/3rd) per lane, the EV of every bet, the best open "
                    "bet and sets, and the expected points of each pace option for the sheep "
                    "you move; it follows a whole game turn by turn (the dice total and the pace "
                    "played move the sheep as the engine does). The API answers GET "
                    "/api/race/odds, /api/race/ev, /api/race/advise and /api/race/move with "
                    "the query parameters named as the CLI's options (position, lanes, stage, "
                    "lane, open, hidden, rival-open, taken, policy, games, seed, scores, seat, "
                    "objective, tie-order, rival-bets, total, option), and /api/race/rules. "
                    "Ctrl-C stops it.",
        epilog="example: sheepsim serve --open")
    p.add_argument("--host", default=DEFAULT_HOST, metavar="ADDRESS",
                   help=f"address or name to listen on (default {DEFAULT_HOST}: this computer "
                        "only). Requests must name the server by it (the Host header): a "
                        "loopback address also answers to localhost, 0.0.0.0 or :: to any IP "
                        "address and this computer's name; other names are refused (403)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, metavar="N",
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file (default: the shipped "
                   "standard rules)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.add_argument("--answers-kept", type=_answers_kept, default=ANSWERS_KEPT,
                   metavar="N", help=f"keep the latest N answers in memory: a question asked "
                   f"again is answered from them at once (default {ANSWERS_KEPT:,}, "
                   "up to about 26 kB each; 0 keeps none, every question is computed)")
    p.set_defaults(func=cmd_serve)


def _port(text: str) -> int:
    import argparse

    from sheepsim.options import non_negative_int

    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {text!r}")
    return value


def _answers_kept(text: str) -> int:
    from sheepsim.options import non_negative_int

    return non_negative_int(text)


def cmd_serve(args) -> int:
    import sys

    from sheepsim.serve.server import make_server, start_warm_up

    server = make_server(args.host, args.port, rules=args.rules, answers_kept=args.answers_kept)
    try:
        host, port = server.server_address[:2]
        url = f"http://{_url_host(args.host, host)}:{port}/"
        if server.public:
            sys.stderr.write(f"sheepsim serve: warning: listening on {args.host}: everyone on "
                             "that network can use this page and this computer's solver\n")
        sys.stderr.write(f"sheepsim serve: The Sheep Race at {url} (Ctrl-C stops it)\n")
        sys.stderr.flush()
        start_warm_up(server.api)  # behind the page: its first questions wait for it
        if args.open:
            import webbrowser

            webbrowser.open(url)
        server.serve_forever()
    except KeyboardInterrupt:
        sys.stderr.write("sheepsim serve: stopped\n")
    finally:
        server.server_close()
    return 0


def _url_host(asked: str, bound: str) -> str:
    """The host to print in the URL: the asked name, or for an any-address bind the
    loopback address (which always reaches it from this computer)."""
    if asked in ("0.0.0.0", "", "::"):
        return "127.0.0.1" if asked != "::" else "[::1]"
    return f"[{bound}]" if ":" in bound else asked
