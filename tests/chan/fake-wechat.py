#!/usr/bin/env python3
"""fake-wechat.py - a small WeChat Pay style channel (v2 API shape) for the
tests, written from the v2 API pages: XML bodies, amounts in fen, every
message signed over its sorted non-empty parameters but sign, as
"k=v&...&key=KEY": MD5 of that or HMAC-SHA256 keyed with the merchant key,
upper-case hex (Python's hashlib and hmac). The merchant account is set up
for one sign type (--sign-type, HMAC-SHA256 by default): a request names it
in sign_type (none: MD5) and must be signed with it; an answer names no
sign_type and is signed with the request's type; a payment notify names
sign_type only for HMAC-SHA256 (none: MD5). Python 3 standard library
only; listens on 127.0.0.1 on a random port and prints "PORT <n>"; exits
after --max-seconds. Every key it is given is made up by the test.

API (each request must be signed; a bad signature is return_code FAIL):
  POST /pay/unifiedorder     out_trade_no, total_fee, fee_type, attach -> prepay_id,
                             code_url (trade_type NATIVE: weixin://wxpay/bizpayurl?pr=...;
                             NATIVE needs product_id: PARAM_ERROR without it)
                             (the same out_trade_no again: the same order)
  POST /pay/orderquery       out_trade_no -> trade_state; SUCCESS also total_fee,
                             cash_fee, fee_type, transaction_id; any other state
                             (REFUND too) out_trade_no, attach and trade_state_desc
                             only; ORDERNOTEXIST when unknown
  POST /secapi/pay/refund    out_trade_no, out_refund_no, total_fee, refund_fee
                             (the same out_refund_no again: the same refund)
  POST /pay/refundquery      out_refund_no or out_trade_no -> total_fee, cash_fee,
                             fee_type, refund_count, refund_status_$n, refund_fee_$n ...
                             (out_trade_no: every refund of the order)
  POST /pay/downloadbill     bill_date YYYYMMDD, bill_type ALL -> the trade bill of
                             that China day as TEXT (not XML, not signed): a header
                             of Chinese column names, one row per trade paid and per
                             refund succeeded that day (every field starting with a
                             backquote; the goods name quoted, it holds a comma), a
                             summary header and row; fee 0.6% of each amount, to the
                             fen. No trade that day: return_code FAIL "No Bill Exist"
Control (JSON, unsigned):
  POST /_control/trade/NO    {"state": "SUCCESS"|"NOTPAY"|"CLOSED"|..., "time": T,
                             "fee": FEN, "attach": A (the trade changed under the shop)}
                             moves a trade and queues its notify (SUCCESS, PAYERROR;
                             any state with "notify": true; a notify of a state
                             other than SUCCESS names no total_fee);
                             a trade paid is in the bill of the day of T (Unix
                             seconds, default now)
  POST /_control/refund/NO   {"status": "SUCCESS"|"CHANGE"|"REFUNDCLOSE"|..., "time": T}
                             moves a refund and queues its refund notify (not for
                             PROCESSING); a refund succeeded is in the bill of T's day
  POST /_control/foreign_trade {"no": NO, "fee": FEN, "fee_type": "CNY", "time": T}:
                             a trade paid at T that the shop never asked for (the
                             channel's own terminal or page): in the bill, queryable
  POST /_control/mode        {"duplicate": bool, "reorder": bool, "lose": bool,
                             "bad_sign": bool, "bad_req_info": "" | "other_key" |
                             "garbage" | "truncated" | "plain", "bill_gbk": bool,
                             "bill_bom": bool, "bill_bad_summary": bool,
                             "bill_error": "" | "SYSTEMERROR" | ..., "notify_md5": bool,
                             "answer_sign_type": "" | T}: how queued notifies
                             are handed out (notify_md5: MD5-signed naming no
                             sign_type, whatever the account's type; answer_sign_type:
                             answers name sign_type T, not the pages' way; bad_sign: a
                             payment notify signed, a
                             refund notify encrypted, with another key); how bills
                             are written (GBK, UTF-8 with a BOM, a summary off by
                             one row) or refused (bill_error as return_msg)
  POST /_control/notifies    -> {"notifies": [XML, ...]}: the notifies queued
                             since the last call, as the mode says (a relay in
                             front of the shop would POST each to it)
  POST /_control/log         -> {"log": [{"path": P}, ...]} every API request
  POST /_control/state       -> {"trades": {NO: {..., "code_url": U}}, "refunds": {...}}

A refund notify (v2) has no sign: its refund travels in req_info, the
<root>...</root> document encrypted with AES-256-ECB (PKCS#7 padding)
keyed with the lower-case hex MD5 of the merchant key, in base64. It is
encrypted with Python's cryptography package when it is installed, else
with the openssl tool.
"""
import argparse
import base64
import datetime
import subprocess
import hashlib
import hmac
import json
import random
import secrets
import threading
import time
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

S = {"key": "", "sign_type": "HMAC-SHA256", "trades": {}, "refunds": {}, "queue": [], "log": [],
     "mode": {"duplicate": False, "reorder": False, "lose": False, "bad_sign": False,
              "bad_req_info": "", "bill_gbk": False, "bill_bom": False,
              "bill_bad_summary": False, "bill_error": ""},
     "tx": 4200000000000000000}
LOCK = threading.Lock()


def sign(params, key, sign_type=None):
    items = sorted((k, v) for k, v in params.items() if k != "sign" and v != "")
    text = "&".join("%s=%s" % kv for kv in items) + "&key=" + key
    if (sign_type or S["sign_type"]) == "MD5":
        return hashlib.md5(text.encode()).hexdigest().upper()
    return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest().upper()


def to_xml(params):
    return "<xml>" + "".join("<%s><![CDATA[%s]]></%s>" % (k, v, k)
                             for k, v in params.items()) + "</xml>"


def signed_xml(params, key=None):
    """an answer: no sign_type, signed with the account's (the request's) type"""
    p = dict(params)
    p["nonce_str"] = secrets.token_hex(8)
    if S["mode"].get("answer_sign_type"):  # not the pages' way: for a refusal test
        p["sign_type"] = S["mode"]["answer_sign_type"]
    p["sign"] = sign(p, key or S["key"])
    return to_xml(p)


def notify_xml(params, key=None):
    """a payment notify: sign_type named for HMAC-SHA256 only (none: MD5)"""
    p = dict(params)
    p["nonce_str"] = secrets.token_hex(8)
    if S["mode"].get("notify_md5"):  # the default of the notify page, any account
        p["sign"] = sign(p, key or S["key"], "MD5")
        return to_xml(p)
    if S["sign_type"] != "MD5":
        p["sign_type"] = S["sign_type"]
    p["sign"] = sign(p, key or S["key"])
    return to_xml(p)


def aes_key(key):
    return hashlib.md5(key.encode()).hexdigest().encode()


def encrypt(key, plain):
    """AES-256-ECB with PKCS#7 padding, base64: req_info."""
    try:
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    except ImportError:
        out = subprocess.run(["openssl", "enc", "-aes-256-ecb", "-K", aes_key(key).hex(),
                              "-base64", "-A"], input=plain, capture_output=True, check=True)
        return out.stdout.decode().strip()
    p = padding.PKCS7(128).padder()
    data = p.update(plain) + p.finalize()
    e = Cipher(algorithms.AES(aes_key(key)), modes.ECB()).encryptor()
    return base64.b64encode(e.update(data) + e.finalize()).decode()


def refund_root(r):
    t = S["trades"][r["trade"]]
    p = {"out_refund_no": r["no"], "out_trade_no": r["trade"], "refund_id": r["refund_id"],
         "refund_fee": str(r["fee"]), "total_fee": str(t["fee"]),
         "settlement_refund_fee": str(r["fee"]), "refund_status": r["status"],
         "refund_recv_accout": "made up account", "refund_request_source": "API"}
    return "<root>" + "".join("<%s><![CDATA[%s]]></%s>" % (k, v, k)
                              for k, v in p.items()) + "</root>"


def refund_notify_xml(r):
    t = S["trades"][r["trade"]]
    how = S["mode"]["bad_req_info"]
    key = "not_the_merchant_key" if S["mode"]["bad_sign"] or how == "other_key" else S["key"]
    plain = refund_root(r).encode()
    if how == "plain":  # not encrypted at all
        info = base64.b64encode(plain).decode()
    elif how == "garbage":
        info = "this is not base64!"
    else:
        info = encrypt(key, plain)
        if how == "truncated":
            info = info[:-8]
    return to_xml({"return_code": "SUCCESS", "appid": t["appid"], "mch_id": t["mch_id"],
                   "nonce_str": secrets.token_hex(8), "req_info": info})


TRADE_STATE_DESC = {"SUCCESS": "支付成功", "REFUND": "转入退款", "NOTPAY": "未支付",
                    "CLOSED": "已关闭", "REVOKED": "已撤销", "USERPAYING": "用户支付中",
                    "PAYERROR": "支付失败"}


def trade_params(t):
    """orderquery's answer: a paid order names its amounts; any other state
    names out_trade_no, attach and trade_state only (the orderquery page)"""
    p = {"return_code": "SUCCESS", "result_code": "SUCCESS", "appid": t["appid"],
         "mch_id": t["mch_id"], "out_trade_no": t["no"], "trade_state": t["state"],
         "trade_state_desc": TRADE_STATE_DESC.get(t["state"], t["state"])}
    if t.get("attach"):
        p["attach"] = t["attach"]
    if t["state"] == "SUCCESS":
        p["total_fee"] = str(t["fee"])
        p["fee_type"] = t["fee_type"]
        p["transaction_id"] = t["tx"]
        p["cash_fee"] = str(t["fee"])
        p["time_end"] = time.strftime("%Y%m%d%H%M%S", time.gmtime(t.get("paid_at", 0) + 8 * 3600))
    return p


CHINA = datetime.timezone(datetime.timedelta(hours=8))
BILL_HEADER = ("交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,"
               "交易类型,交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,"
               "商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,商户数据包,"
               "手续费,费率,订单金额,申请退款金额,费率备注")
BILL_SUMMARY = "总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额"
GOODS = "洗车, 打蜡"


def yuan(fen):
    return "%s%d.%02d" % ("-" if fen < 0 else "", abs(fen) // 100, abs(fen) % 100)


def bill_fee(fen):
    """the channel's fee: 0.6%, to the fen, half up"""
    return (fen * 6 + 500) // 1000


def bill_row(when, f):
    """one row: every field starts with a backquote; one with a comma is quoted"""
    cells = [datetime.datetime.fromtimestamp(when, CHINA).strftime("%Y-%m-%d %H:%M:%S")] + f
    out = []
    for c in cells:
        c = "`" + c
        out.append('"%s"' % c.replace('"', '""') if "," in c or '"' in c else c)
    return ",".join(out)


def bill(date):
    """the trade bill of the China day date (YYYYMMDD), bytes; None when empty"""
    start = datetime.datetime.strptime(date, "%Y%m%d").replace(tzinfo=CHINA).timestamp()
    rows = []
    tot = {"settle": 0, "refund": 0, "fee": 0}
    for t in S["trades"].values():
        at = t.get("paid_at")
        if at is None or not start <= at < start + 86400:
            continue
        fee = bill_fee(t["fee"])
        rows.append((at, bill_row(at, [
            t["appid"], t["mch_id"], "0", "", t["tx"], t["no"], "oUpF8uFAKE", "NATIVE",
            "SUCCESS", "CMC", t["fee_type"], yuan(t["fee"]), "0.00", "0", "0", "0.00",
            "0.00", "", "", GOODS, "", yuan(fee), "0.60%", yuan(t["fee"]), "0.00", ""])))
        tot["settle"] += t["fee"]
        tot["fee"] += fee
    for r in S["refunds"].values():
        at = r.get("done_at")
        if at is None or not start <= at < start + 86400:
            continue
        t = S["trades"][r["trade"]]
        fee = -bill_fee(r["fee"])
        rows.append((at, bill_row(at, [
            t["appid"], t["mch_id"], "0", "", t.get("tx", ""), t["no"], "oUpF8uFAKE",
            "NATIVE", "REFUND", "CMC", t["fee_type"], "0.00", "0.00", r["refund_id"],
            r["no"], yuan(r["fee"]), "0.00", "ORIGINAL", "SUCCESS", GOODS, "", yuan(fee),
            "0.60%", "0.00", yuan(r["fee"]), ""])))
        tot["refund"] += r["fee"]
        tot["fee"] += fee
    if not rows:
        return None
    rows.sort()
    n = len(rows) + (1 if S["mode"]["bill_bad_summary"] else 0)
    summary = ",".join("`" + v for v in [
        str(n), yuan(tot["settle"]), yuan(tot["refund"]), "0.00", yuan(tot["fee"]),
        yuan(tot["settle"]), yuan(tot["refund"])])
    text = "\r\n".join([BILL_HEADER] + [r for _, r in rows] + [BILL_SUMMARY, summary]) + "\r\n"
    if S["mode"]["bill_gbk"]:
        return text.encode("gbk")
    return (b"\xef\xbb\xbf" if S["mode"]["bill_bom"] else b"") + text.encode()


def native_code_url():
    """A Native payment's code_url as WeChat Pay answers it: the address the
    customer's phone scans (weixin://wxpay/bizpayurl?pr= and a short token)."""
    abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "weixin://wxpay/bizpayurl?pr=" + "".join(secrets.choice(abc) for _ in range(7))


def queue_notify(t):
    p = trade_params(t)
    del p["trade_state"]
    del p["trade_state_desc"]
    if t["state"] != "SUCCESS":
        p["result_code"] = "FAIL"
        p["err_code"] = t["state"]
        p["err_code_des"] = TRADE_STATE_DESC.get(t["state"], t["state"])
    S["queue"].append(p)


class H(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):  # quiet
        pass

    def reply(self, status, body, ctype="text/xml"):
        b = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with LOCK:
            if self.path.startswith("/_control/"):
                self.control(self.path[len("/_control/"):], raw)
            else:
                S["log"].append({"path": self.path})
                self.api(raw)

    def control(self, what, raw):
        arg = json.loads(raw or b"{}")
        if what.startswith("trade/"):
            t = S["trades"].get(what[6:])
            if not t:
                return self.reply(404, "{}", "application/json")
            t["state"] = arg["state"]
            for k in ("fee", "attach"):  # a channel that disagrees with the shop
                if k in arg:
                    t[k] = int(arg[k]) if k == "fee" else arg[k]
            if t["state"] == "SUCCESS" and not t.get("tx"):
                S["tx"] += 1
                t["tx"] = str(S["tx"])
            if t["state"] == "SUCCESS":
                t["paid_at"] = arg.get("time", time.time())
            if t["state"] in ("SUCCESS", "PAYERROR") or arg.get("notify"):
                queue_notify(t)
            return self.reply(200, json.dumps(trade_params(t)), "application/json")
        if what.startswith("refund/"):
            r = S["refunds"].get(what[7:])
            if not r:
                return self.reply(404, "{}", "application/json")
            r["status"] = arg["status"]
            if r["status"] == "SUCCESS":
                r["done_at"] = arg.get("time", time.time())
            if r["status"] != "PROCESSING":
                S["queue"].append({"refund": r["no"]})
            return self.reply(200, json.dumps(r), "application/json")
        if what == "foreign_trade":
            S["tx"] += 1
            t = S["trades"][arg["no"]] = {
                "no": arg["no"], "fee": int(arg["fee"]), "fee_type": arg.get("fee_type", "CNY"),
                "state": "SUCCESS", "appid": arg.get("appid", "wx_fake_appid"),
                "mch_id": arg.get("mch_id", "10000100"), "refunded": 0, "prepay": "",
                "tx": str(S["tx"]), "paid_at": arg.get("time", time.time())}
            return self.reply(200, json.dumps(trade_params(t)), "application/json")
        if what == "mode":
            S["mode"].update(arg)
            return self.reply(200, json.dumps(S["mode"]), "application/json")
        if what == "notifies":
            out = []
            for p in S["queue"]:
                if S["mode"]["lose"]:
                    continue
                key = "not_the_merchant_key" if S["mode"]["bad_sign"] else None
                if "refund" in p:
                    x = refund_notify_xml(S["refunds"][p["refund"]])
                else:
                    x = notify_xml(p, key)
                out.append(x)
                if S["mode"]["duplicate"]:
                    out.append(x)
            S["queue"] = []
            if S["mode"]["reorder"]:
                out.reverse()
                random.shuffle(out)
            return self.reply(200, json.dumps({"notifies": out}), "application/json")
        if what == "log":
            return self.reply(200, json.dumps({"log": S["log"]}), "application/json")
        if what == "state":
            return self.reply(200, json.dumps({"trades": S["trades"], "refunds": S["refunds"]}),
                              "application/json")
        return self.reply(404, "{}", "application/json")

    def fail(self, code, des):
        return self.reply(200, signed_xml({"return_code": "SUCCESS", "result_code": "FAIL",
                                           "err_code": code, "err_code_des": des}))

    def api(self, raw):
        try:
            root = ET.fromstring(raw)
            p = {c.tag: (c.text or "") for c in root}
        except ET.ParseError:
            return self.reply(200, to_xml({"return_code": "FAIL", "return_msg": "not XML"}))
        if p.get("sign_type", "MD5") != S["sign_type"] or p.get("sign") != sign(p, S["key"]):
            return self.reply(200, to_xml({"return_code": "FAIL", "return_msg": "SIGNERROR"}))
        if self.path == "/pay/unifiedorder":
            no = p["out_trade_no"]
            if p.get("trade_type") == "NATIVE" and not p.get("product_id"):
                return self.fail("PARAM_ERROR", "product_id is required for trade_type NATIVE")
            t = S["trades"].get(no)
            if t and (t["fee"] != int(p["total_fee"]) or t["fee_type"] != p["fee_type"]):
                return self.fail("INVALID_REQUEST", "out_trade_no used with other parameters")
            if not t:
                t = S["trades"][no] = {"no": no, "fee": int(p["total_fee"]),
                                       "fee_type": p.get("fee_type", "CNY"),
                                       "state": "NOTPAY", "appid": p["appid"],
                                       "mch_id": p["mch_id"], "refunded": 0,
                                       "prepay": "wx" + secrets.token_hex(12),
                                       "attach": p.get("attach", ""),
                                       "product_id": p.get("product_id", ""),
                                       "code_url": native_code_url()}
            return self.reply(200, signed_xml({"return_code": "SUCCESS",
                                               "result_code": "SUCCESS",
                                               "prepay_id": t["prepay"],
                                               "trade_type": "NATIVE",
                                               "code_url": t["code_url"]}))
        if self.path == "/pay/orderquery":
            t = S["trades"].get(p.get("out_trade_no"))
            if not t:
                return self.fail("ORDERNOTEXIST", "no such order")
            return self.reply(200, signed_xml(trade_params(t)))
        if self.path == "/secapi/pay/refund":
            t = S["trades"].get(p.get("out_trade_no"))
            if not t or t["state"] not in ("SUCCESS", "REFUND"):
                return self.fail("ORDERNOTEXIST", "no paid order")
            r = S["refunds"].get(p["out_refund_no"])
            if not r:
                fee = int(p["refund_fee"])
                if fee > t["fee"] - t["refunded"] or int(p["total_fee"]) != t["fee"]:
                    return self.fail("INVALID_REQUEST", "refund_fee too large")
                t["refunded"] += fee
                t["state"] = "REFUND"
                r = S["refunds"][p["out_refund_no"]] = {
                    "no": p["out_refund_no"], "trade": t["no"], "fee": fee,
                    "status": "PROCESSING", "fee_type": t["fee_type"],
                    "refund_id": "50" + secrets.token_hex(10)}
            return self.reply(200, signed_xml({
                "return_code": "SUCCESS", "result_code": "SUCCESS",
                "out_trade_no": r["trade"], "out_refund_no": r["no"],
                "refund_id": r["refund_id"], "refund_fee": str(r["fee"]),
                "total_fee": str(S["trades"][r["trade"]]["fee"]),
                "refund_fee_type": r["fee_type"]}))
        if self.path == "/pay/downloadbill":
            date = p.get("bill_date", "")
            if p.get("bill_type") != "ALL" or len(date) != 8 or not date.isdigit():
                return self.reply(200, to_xml({"return_code": "FAIL",
                                               "return_msg": "invalid bill_date or bill_type"}))
            if S["mode"]["bill_error"]:
                return self.reply(200, to_xml({"return_code": "FAIL",
                                               "return_msg": S["mode"]["bill_error"]}))
            b = bill(date)
            if b is None:
                return self.reply(200, to_xml({"return_code": "FAIL",
                                               "return_msg": "No Bill Exist",
                                               "error_code": "20002"}))
            return self.reply(200, b, "text/plain; charset=utf-8")
        if self.path == "/pay/refundquery":
            if p.get("out_refund_no"):
                rs = [r for r in S["refunds"].values() if r["no"] == p["out_refund_no"]]
            else:
                rs = [r for r in S["refunds"].values() if r["trade"] == p.get("out_trade_no")]
            if not rs:
                return self.fail("REFUNDNOTEXIST", "no such refund")
            t = S["trades"][rs[0]["trade"]]
            a = {"return_code": "SUCCESS", "result_code": "SUCCESS",
                 "out_trade_no": t["no"], "transaction_id": t.get("tx", ""),
                 "total_fee": str(t["fee"]), "cash_fee": str(t["fee"]),
                 "fee_type": t["fee_type"], "refund_count": str(len(rs)),
                 "refund_fee_type": rs[0]["fee_type"]}
            for i, r in enumerate(rs):
                a.update({"out_refund_no_%d" % i: r["no"], "refund_id_%d" % i: r["refund_id"],
                          "refund_fee_%d" % i: str(r["fee"]),
                          "refund_status_%d" % i: r["status"]})
            return self.reply(200, signed_xml(a))
        return self.reply(404, to_xml({"return_code": "FAIL", "return_msg": "no such API"}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--key", required=True, help="the merchant key (made up)")
    ap.add_argument("--max-seconds", type=int, default=120)
    ap.add_argument("--sign-type", default="HMAC-SHA256", choices=["HMAC-SHA256", "MD5"],
                    help="the sign type the merchant account is set up for")
    a = ap.parse_args()
    S["key"] = a.key
    S["sign_type"] = a.sign_type
    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    print("PORT", srv.server_address[1], flush=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    time.sleep(a.max_seconds)


if __name__ == "__main__":
    main()
