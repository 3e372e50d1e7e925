#!/usr/bin/env python3
"""fake-wechat-v2.py - a WeChat Pay v2 (XML) server for contract tests, written
from the published v2 API documentation only (see wechat-v2-contract.md beside
this file for every rule and where it was read). It does not know frontdesk.

    fake-wechat-v2.py --port-file FILE --appid APPID --mch-id MCH --key KEY

Listens on 127.0.0.1 (a free port, written to FILE once it listens).

Endpoints (POST, XML body <xml>...</xml>), as the docs define them:
  /pay/unifiedorder  /pay/orderquery  /pay/closeorder
  /secapi/pay/refund /pay/refundquery
Every request's sign is checked with the sign_type the request names (MD5 when
it names none); a bad one is answered return_code FAIL with a return_msg and
nothing else. Answers are signed with the request's sign type and carry no
sign_type field (the docs list none in any answer).

Control interface (JSON over HTTP, never part of the v2 API):
  POST /_control/order    {"out_trade_no": O, "trade_state": S}   set a trade state
  POST /_control/refund   {"out_refund_no": R | "*", "refund_status": S,
                           "processing_queries": N}  a refund's status; with N,
                           the refund answers PROCESSING to the next N
                           refundqueries and then S
  POST /_control/refund_default {"refund_status": S, "processing_queries": N}
                           what a new refund starts as (default PROCESSING, N 0)
  POST /_control/notify/pay {"out_trade_no": O, "result_code": "SUCCESS"|"FAIL",
                           "sign_type": "MD5"|"HMAC-SHA256"|null}
                           answers the body of the payment result notify the
                           channel would POST (signed; no sign_type field
                           when null, signed with MD5, the docs' default); a
                           SUCCESS notify marks the order paid first
  POST /_control/notify/refund {"out_refund_no": R, "refund_status": S}
                           answers the body of the refund result notify, with
                           req_info = base64(AES-256-ECB(md5hex(key), PKCS7))
                           made by the openssl command-line tool
  POST /_control/mode     {"answer_sign_type": bool}  true: answers also carry
                           sign_type (NOT the docs' behaviour; off by default)
  GET  /_control/log       every v2 request: path, params, sign_ok, answer
  GET  /_control/state     orders and refunds
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
CFG = {}
ORDERS = {}    # out_trade_no -> dict
REFUNDS = {}   # out_refund_no -> dict
LOG = []
MODE = {"answer_sign_type": False}
REFUND_DEFAULT = {"refund_status": "PROCESSING", "processing_queries": 0}
SEQ = [0]

TRADE_STATES = ("SUCCESS", "REFUND", "NOTPAY", "CLOSED", "REVOKED",
                "USERPAYING", "PAYERROR")
TRADE_STATE_DESC = {
    "SUCCESS": "支付成功", "REFUND": "转入退款", "NOTPAY": "订单未支付",
    "CLOSED": "已关闭", "REVOKED": "已撤销", "USERPAYING": "用户支付中",
    "PAYERROR": "支付失败",
}
REFUND_STATES = ("SUCCESS", "REFUNDCLOSE", "PROCESSING", "CHANGE")


def nonce():
    return hashlib.md5(os.urandom(16)).hexdigest()


def next_id(prefix):
    SEQ[0] += 1
    return "%s%s%06d" % (prefix, time.strftime("%Y%m%d%H%M%S"), SEQ[0])


# -- signature (安全规范 / 签名算法) ------------------------------------------
def string_a(params):
    """Non-empty parameters except sign, sorted by ASCII name, k=v joined by &."""
    keys = sorted(k for k, v in params.items() if k != "sign" and v is not None and v != "")
    return "&".join("%s=%s" % (k, params[k]) for k in keys)


def make_sign(params, key, sign_type):
    temp = string_a(params) + "&key=" + key
    if sign_type == "HMAC-SHA256":
        return hmac.new(key.encode(), temp.encode(), hashlib.sha256).hexdigest().upper()
    return hashlib.md5(temp.encode()).hexdigest().upper()


def sign_ok(params, key):
    st = params.get("sign_type") or "MD5"
    if st not in ("MD5", "HMAC-SHA256"):
        return False, st
    got = params.get("sign", "")
    return hmac.compare_digest(make_sign(params, key, st), got), st


# -- XML ---------------------------------------------------------------------
def parse_xml(body):
    root = ET.fromstring(body)
    if root.tag != "xml":
        raise ValueError("root is not <xml>")
    return {child.tag: (child.text or "") for child in root}


def to_xml(params, root="xml"):
    out = ["<%s>" % root]
    for k, v in params.items():
        if v is None:
            continue
        if isinstance(v, int):
            out.append("<%s>%d</%s>" % (k, v, k))
        else:
            out.append("<%s><![CDATA[%s]]></%s>" % (k, v, k))
    out.append("</%s>" % root)
    return "".join(out)


# -- answers -----------------------------------------------------------------
def fail_return(msg):
    """return_code FAIL: only return_code and return_msg (通信标识)."""
    return {"return_code": "FAIL", "return_msg": msg}


def signed(fields, sign_type):
    """Add sign (with the request's sign type), never sign_type unless the
    test asked for the non-documented mode."""
    ans = dict(fields)
    if MODE["answer_sign_type"]:
        ans["sign_type"] = sign_type
    ans["sign"] = make_sign({k: str(v) for k, v in ans.items() if v is not None},
                            CFG["key"], sign_type)
    return ans


def base_fields(req):
    return {"return_code": "SUCCESS", "return_msg": "OK",
            "appid": CFG["appid"], "mch_id": CFG["mch_id"], "nonce_str": nonce()}


def biz_fail(req, st, code, des):
    f = base_fields(req)
    f.update({"result_code": "FAIL", "err_code": code, "err_code_des": des})
    return signed(f, st)


def need(req, names):
    return [n for n in names if not req.get(n)]


def check_common(req, st):
    missing = need(req, ["appid", "mch_id", "nonce_str", "sign"])
    if missing:
        return biz_fail(req, st, "LACK_PARAMS", "缺少参数 " + ",".join(missing))
    if req["mch_id"] != CFG["mch_id"]:
        return biz_fail(req, st, "MCHID_NOT_EXIST", "MCHID不存在")
    if req["appid"] != CFG["appid"]:
        return biz_fail(req, st, "APPID_MCHID_NOT_MATCH", "appid和mch_id不匹配")
    return None


def find_order(req):
    if req.get("transaction_id"):
        for o in ORDERS.values():
            if o["transaction_id"] == req["transaction_id"]:
                return o
        return None
    return ORDERS.get(req.get("out_trade_no", ""))


def unifiedorder(req, st):
    missing = need(req, ["body", "out_trade_no", "total_fee", "spbill_create_ip",
                         "notify_url", "trade_type"])
    if req.get("trade_type") == "NATIVE" and not req.get("product_id"):
        missing.append("product_id")
    if req.get("trade_type") == "JSAPI" and not req.get("openid"):
        missing.append("openid")
    if missing:
        return biz_fail(req, st, "LACK_PARAMS", "缺少参数 " + ",".join(missing))
    if not req["total_fee"].isdigit() or int(req["total_fee"]) <= 0:
        return biz_fail(req, st, "INVALID_REQUEST", "total_fee 参数错误")
    o = ORDERS.get(req["out_trade_no"])
    if o is not None:
        if o["trade_state"] in ("SUCCESS", "REFUND"):
            return biz_fail(req, st, "ORDERPAID", "商户订单已支付")
        if o["trade_state"] in ("CLOSED", "REVOKED"):
            return biz_fail(req, st, "ORDERCLOSED", "订单已关闭")
        same = all(o["request"].get(k) == req.get(k)
                   for k in ("body", "total_fee", "trade_type", "product_id", "fee_type"))
        if not same:
            return biz_fail(req, st, "INVALID_REQUEST", "订单重入时参数值与原请求不一致")
    else:
        o = {"out_trade_no": req["out_trade_no"], "request": dict(req),
             "total_fee": int(req["total_fee"]), "fee_type": req.get("fee_type") or "CNY",
             "trade_type": req["trade_type"], "trade_state": "NOTPAY",
             "transaction_id": next_id("4200"), "prepay_id": "wx" + next_id(""),
             "time_end": "", "attach": req.get("attach", "")}
        ORDERS[o["out_trade_no"]] = o
    f = base_fields(req)
    if req.get("device_info"):
        f["device_info"] = req["device_info"]
    f["result_code"] = "SUCCESS"
    f["trade_type"] = o["trade_type"]
    f["prepay_id"] = o["prepay_id"]
    if o["trade_type"] == "NATIVE":
        f["code_url"] = "weixin://wxpay/bizpayurl?pr=" + o["prepay_id"][-7:]
    return signed(f, st)


def mark_paid(o):
    if o["trade_state"] != "SUCCESS":
        o["trade_state"] = "SUCCESS"
    if not o["time_end"]:
        o["time_end"] = time.strftime("%Y%m%d%H%M%S")


def orderquery(req, st):
    if not req.get("transaction_id") and not req.get("out_trade_no"):
        return biz_fail(req, st, "LACK_PARAMS", "缺少参数 transaction_id/out_trade_no")
    o = find_order(req)
    if o is None:
        return biz_fail(req, st, "ORDERNOTEXIST", "此交易订单号不存在")
    f = base_fields(req)
    f["result_code"] = "SUCCESS"
    if o["trade_state"] == "SUCCESS":
        # 以下字段在return_code 、result_code、trade_state都为SUCCESS时有返回
        f.update({"openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", "is_subscribe": "N",
                  "trade_type": o["trade_type"], "trade_state": "SUCCESS",
                  "bank_type": "CMC", "total_fee": o["total_fee"],
                  "fee_type": o["fee_type"], "cash_fee": o["total_fee"],
                  "transaction_id": o["transaction_id"],
                  "out_trade_no": o["out_trade_no"],
                  "attach": o["attach"] or None, "time_end": o["time_end"],
                  "trade_state_desc": TRADE_STATE_DESC["SUCCESS"]})
    else:
        # 如trade_state不为 SUCCESS，则只返回out_trade_no（必传）和attach（选传）
        f.update({"out_trade_no": o["out_trade_no"], "trade_state": o["trade_state"],
                  "trade_state_desc": TRADE_STATE_DESC[o["trade_state"]]})
    return signed(f, st)


def closeorder(req, st):
    if not req.get("out_trade_no"):
        return biz_fail(req, st, "LACK_PARAMS", "缺少参数 out_trade_no")
    o = ORDERS.get(req["out_trade_no"])
    if o is None:
        return biz_fail(req, st, "ORDERNOTEXIST", "此交易订单号不存在")
    if o["trade_state"] in ("SUCCESS", "REFUND"):
        return biz_fail(req, st, "ORDERPAID", "订单已支付，不能发起关单")
    if o["trade_state"] in ("CLOSED", "REVOKED"):
        return biz_fail(req, st, "ORDERCLOSED", "订单已关闭，无法重复关闭")
    o["trade_state"] = "CLOSED"
    f = base_fields(req)
    f.update({"result_code": "SUCCESS", "result_msg": "OK"})
    return signed(f, st)


def refund(req, st):
    missing = need(req, ["out_refund_no", "total_fee", "refund_fee"])
    if not req.get("transaction_id") and not req.get("out_trade_no"):
        missing.append("transaction_id/out_trade_no")
    if missing:
        return biz_fail(req, st, "LACK_PARAMS", "缺少参数 " + ",".join(missing))
    o = find_order(req)
    if o is None:
        return biz_fail(req, st, "ORDERNOTEXIST", "订单不存在")
    if o["trade_state"] not in ("SUCCESS", "REFUND"):
        return biz_fail(req, st, "TRADE_STATE_ERROR", "订单状态错误")
    if not req["refund_fee"].isdigit() or not req["total_fee"].isdigit():
        return biz_fail(req, st, "PARAM_ERROR", "参数错误")
    if int(req["total_fee"]) != o["total_fee"]:
        return biz_fail(req, st, "PARAM_ERROR", "订单金额不一致")
    r = REFUNDS.get(req["out_refund_no"])
    if r is None:
        done = sum(x["refund_fee"] for x in REFUNDS.values()
                   if x["out_trade_no"] == o["out_trade_no"] and x["refund_status"] != "REFUNDCLOSE")
        if done + int(req["refund_fee"]) > o["total_fee"]:
            return biz_fail(req, st, "ERROR", "累计退款金额大于支付金额")
        r = {"out_refund_no": req["out_refund_no"], "out_trade_no": o["out_trade_no"],
             "refund_id": next_id("5030"), "refund_fee": int(req["refund_fee"]),
             "refund_status": REFUND_DEFAULT["refund_status"],
             "processing_queries": REFUND_DEFAULT["processing_queries"],
             "success_time": ""}
        REFUNDS[r["out_refund_no"]] = r
        o["trade_state"] = "REFUND"
    elif r["refund_fee"] != int(req["refund_fee"]) or r["out_trade_no"] != o["out_trade_no"]:
        return biz_fail(req, st, "PARAM_ERROR", "同一退款单号参数不一致")
    f = base_fields(req)
    f.update({"result_code": "SUCCESS", "transaction_id": o["transaction_id"],
              "out_trade_no": o["out_trade_no"], "out_refund_no": r["out_refund_no"],
              "refund_id": r["refund_id"], "refund_fee": r["refund_fee"],
              "total_fee": o["total_fee"], "cash_fee": o["total_fee"]})
    return signed(f, st)


def refund_status_now(r):
    """The status a refundquery sees; counts down processing_queries."""
    if r["processing_queries"] > 0:
        r["processing_queries"] -= 1
        return "PROCESSING"
    if r["refund_status"] == "SUCCESS" and not r["success_time"]:
        r["success_time"] = time.strftime("%Y-%m-%d %H:%M:%S")
    return r["refund_status"]


def refundquery(req, st):
    keys = [k for k in ("refund_id", "out_refund_no", "transaction_id", "out_trade_no") if req.get(k)]
    if not keys:
        return biz_fail(req, st, "LACK_PARAMS", "缺少参数")
    # 查询的优先级是: refund_id > out_refund_no > transaction_id > out_trade_no
    k = keys[0]
    if k == "refund_id":
        rs = [r for r in REFUNDS.values() if r["refund_id"] == req[k]]
    elif k == "out_refund_no":
        rs = [REFUNDS[req[k]]] if req[k] in REFUNDS else []
    else:
        o = find_order(req)
        rs = [r for r in REFUNDS.values() if o is not None and r["out_trade_no"] == o["out_trade_no"]]
    if not rs:
        return biz_fail(req, st, "REFUNDNOTEXIST", "退款订单查询失败")
    o = ORDERS[rs[0]["out_trade_no"]]
    f = base_fields(req)
    f.update({"result_code": "SUCCESS", "transaction_id": o["transaction_id"],
              "out_trade_no": o["out_trade_no"], "total_fee": o["total_fee"],
              "cash_fee": o["total_fee"], "refund_count": len(rs)})
    for n, r in enumerate(rs):
        status = refund_status_now(r)
        f["out_refund_no_%d" % n] = r["out_refund_no"]
        f["refund_id_%d" % n] = r["refund_id"]
        f["refund_channel_%d" % n] = "ORIGINAL"
        f["refund_fee_%d" % n] = r["refund_fee"]
        f["refund_status_%d" % n] = status
        f["refund_account_%d" % n] = "REFUND_SOURCE_UNSETTLED_FUNDS"
        f["refund_recv_accout_%d" % n] = "支付用户的零钱"
        if status == "SUCCESS":
            f["refund_success_time_%d" % n] = r["success_time"]
    return signed(f, st)


HANDLERS = {
    "/pay/unifiedorder": unifiedorder,
    "/pay/orderquery": orderquery,
    "/pay/closeorder": closeorder,
    "/secapi/pay/refund": refund,
    "/pay/refundquery": refundquery,
}


# -- notifies ----------------------------------------------------------------
def pay_notify(spec):
    o = ORDERS[spec["out_trade_no"]]
    result = spec.get("result_code", "SUCCESS")
    if result == "SUCCESS":
        mark_paid(o)
    f = {"return_code": "SUCCESS", "appid": CFG["appid"], "mch_id": CFG["mch_id"],
         "nonce_str": nonce(), "result_code": result}
    if result != "SUCCESS":
        f["err_code"] = spec.get("err_code", "SYSTEMERROR")
        f["err_code_des"] = spec.get("err_code_des", "系统错误")
    f.update({"openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", "is_subscribe": "N",
              "trade_type": o["trade_type"], "bank_type": "CMC",
              "total_fee": o["total_fee"], "fee_type": o["fee_type"],
              "cash_fee": o["total_fee"], "transaction_id": o["transaction_id"],
              "out_trade_no": o["out_trade_no"], "attach": o["attach"] or None,
              "time_end": o["time_end"] or time.strftime("%Y%m%d%H%M%S")})
    st = spec.get("sign_type")
    if st:
        f["sign_type"] = st
    f["sign"] = make_sign({k: str(v) for k, v in f.items() if v is not None},
                          CFG["key"], st or "MD5")
    return to_xml(f)


def aes_ecb_encrypt(plain, key_text):
    """openssl enc -aes-256-ecb: the 32 ASCII characters of the lower-case hex
    MD5 of the merchant key are the 32-byte key; PKCS#7 padding (openssl's)."""
    k = hashlib.md5(key_text.encode()).hexdigest().lower().encode().hex()
    p = subprocess.run(["openssl", "enc", "-aes-256-ecb", "-K", k, "-nosalt"],
                       input=plain.encode(), capture_output=True, check=True)
    return base64.b64encode(p.stdout).decode()


def refund_notify(spec):
    r = REFUNDS[spec["out_refund_no"]]
    status = spec.get("refund_status", r["refund_status"])
    r["refund_status"] = status
    r["processing_queries"] = 0
    if status == "SUCCESS" and not r["success_time"]:
        r["success_time"] = time.strftime("%Y-%m-%d %H:%M:%S")
    o = ORDERS[r["out_trade_no"]]
    info = {"transaction_id": o["transaction_id"], "out_trade_no": o["out_trade_no"],
            "refund_id": r["refund_id"], "out_refund_no": r["out_refund_no"],
            "total_fee": o["total_fee"], "refund_fee": r["refund_fee"],
            "settlement_refund_fee": r["refund_fee"], "refund_status": status,
            "success_time": r["success_time"] if status == "SUCCESS" else None,
            "refund_recv_accout": "支付用户零钱",
            "refund_account": "REFUND_SOURCE_RECHARGE_FUNDS",
            "refund_request_source": "API"}
    plain = to_xml(info, root="root")
    f = {"return_code": "SUCCESS", "appid": CFG["appid"], "mch_id": CFG["mch_id"],
         "nonce_str": nonce(), "req_info": aes_ecb_encrypt(plain, CFG["key"])}
    return to_xml(f)


# -- HTTP --------------------------------------------------------------------
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body, ctype="text/xml; charset=utf-8"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        with LOCK:
            if self.path == "/_control/log":
                return self.send(200, json.dumps(LOG, ensure_ascii=False), "application/json")
            if self.path == "/_control/state":
                return self.send(200, json.dumps({"orders": ORDERS, "refunds": REFUNDS},
                                                 ensure_ascii=False), "application/json")
        # the v2 API takes POST only (REQUIRE_POST_METHOD)
        self.send(200, to_xml(fail_return("请使用post方法")))

    def do_POST(self):
        body = self.read_body()
        with LOCK:
            if self.path.startswith("/_control/"):
                return self.control(self.path[len("/_control/"):], body)
            h = HANDLERS.get(self.path)
            if h is None:
                return self.send(404, "not found", "text/plain")
            entry = {"path": self.path, "params": None, "sign_ok": None, "answer": None}
            LOG.append(entry)
            if not body:
                ans = fail_return("post数据为空")
            else:
                try:
                    req = parse_xml(body)
                except Exception:
                    req = None
                if req is None:
                    ans = fail_return("XML格式错误")
                else:
                    entry["params"] = req
                    good, st = sign_ok(req, CFG["key"])
                    entry["sign_ok"] = good
                    if not good:
                        ans = fail_return("签名失败")
                    else:
                        ans = check_common(req, st) or h(req, st)
            entry["answer"] = ans
            self.send(200, to_xml(ans))

    def control(self, what, body):
        try:
            spec = json.loads(body or b"{}")
            if what == "order":
                if spec["trade_state"] not in TRADE_STATES:
                    raise ValueError("unknown trade_state")
                o = ORDERS[spec["out_trade_no"]]
                if spec["trade_state"] == "SUCCESS":
                    mark_paid(o)
                o["trade_state"] = spec["trade_state"]
                out = {"ok": True}
            elif what == "refund":
                if spec["refund_status"] not in REFUND_STATES:
                    raise ValueError("unknown refund_status")
                rs = list(REFUNDS.values()) if spec["out_refund_no"] == "*" \
                    else [REFUNDS[spec["out_refund_no"]]]
                for r in rs:
                    r["refund_status"] = spec["refund_status"]
                    r["processing_queries"] = int(spec.get("processing_queries", 0))
                out = {"ok": True, "refunds": len(rs)}
            elif what == "refund_default":
                REFUND_DEFAULT["refund_status"] = spec["refund_status"]
                REFUND_DEFAULT["processing_queries"] = int(spec.get("processing_queries", 0))
                out = {"ok": True}
            elif what == "mode":
                MODE["answer_sign_type"] = bool(spec.get("answer_sign_type", False))
                out = {"ok": True}
            elif what == "notify/pay":
                return self.send(200, pay_notify(spec))
            elif what == "notify/refund":
                return self.send(200, refund_notify(spec))
            else:
                return self.send(404, json.dumps({"error": "unknown control"}), "application/json")
        except (KeyError, ValueError) as e:
            return self.send(400, json.dumps({"error": repr(e)}), "application/json")
        self.send(200, json.dumps(out), "application/json")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--appid", required=True)
    ap.add_argument("--mch-id", required=True)
    ap.add_argument("--key", required=True)
    a = ap.parse_args()
    CFG.update(appid=a.appid, mch_id=a.mch_id, key=a.key)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
