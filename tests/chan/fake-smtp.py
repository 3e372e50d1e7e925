#!/usr/bin/env python3
"""fake-smtp.py - a mail server on 127.0.0.1 for the tests (Debian's
python3-aiosmtpd): it stores every message it accepts, byte for byte, as
DIR/NNN.eml (with the envelope in DIR/NNN.env), and prints "PORT <n>" once
it listens; it exits after --max-seconds.

  --reject TEXT   a recipient containing TEXT is refused for good (550)
  --defer TEXT    a recipient containing TEXT is refused for now (451)
  --tls CERT KEY  offer STARTTLS with that certificate, and require it
"""
import argparse
import os
import ssl
import sys
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP


class Store:
    def __init__(self, folder, reject, defer):
        self.folder = folder
        self.reject = reject
        self.defer = defer
        # a fake started again goes on after the mails already stored
        self.n = len([f for f in os.listdir(folder) if f.endswith(".eml")])
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject and self.reject in address:
            return "550 5.1.1 no such mailbox"
        if self.defer and self.defer in address:
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.n += 1
            n = self.n
        base = os.path.join(self.folder, "%03d" % n)
        with open(base + ".tmp", "wb") as f:
            f.write(envelope.original_content or envelope.content)
        with open(base + ".env", "w") as f:
            f.write("%s\n%s\n" % (envelope.mail_from, ",".join(envelope.rcpt_tos)))
        os.rename(base + ".tmp", base + ".eml")
        return "250 Message accepted for delivery"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--reject", default="")
    ap.add_argument("--defer", default="")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--max-seconds", type=float, default=120)
    a = ap.parse_args()
    handler = Store(a.folder, a.reject, a.defer)
    kw = {}
    if a.tls:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        kw = {"tls_context": ctx, "require_starttls": True}
    port = a.port
    if not port:
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
    c = Controller(handler, hostname="127.0.0.1", port=port, decode_data=False,
                   server_kwargs=kw)
    c.start()
    print("PORT %d" % port, flush=True)
    time.sleep(a.max_seconds)
    c.stop()


if __name__ == "__main__":
    sys.exit(main())
