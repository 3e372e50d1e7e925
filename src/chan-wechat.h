/*
 * chan-wechat.h - a WeChat Pay style channel adapter (its v2 API shape),
 * the second payment adapter behind struct chan_ops (channel.h).
 *
 * What it speaks: XML bodies (<xml><key>value</key>...</xml>, values in
 * CDATA), read with expat, never by hand; every request and every answer
 * signed over its parameters sorted by name as "k1=v1&k2=v2...&key=KEY"
 * with the merchant key, in upper-case hex: HMAC-SHA256 keyed with it or
 * MD5 of the text, the one type the merchant account is set up for (the
 * provider's setting sign_type, HMAC-SHA256 by default). A request names
 * its sign_type; an answer names none and is signed with the request's
 * type (one naming another type is refused); a payment notify is signed
 * with the type it names, MD5 when it names none (as the official SDK
 * reads it). A message whose signature does not verify is refused.
 * Amounts in fen (the minor unit of CNY); calls: unifiedorder (create),
 * orderquery, refund, refundquery; and the asynchronous payment notify
 * that the channel POSTs to the shop, which must be answered with the
 * SUCCESS XML (chan_wechat_ops.answer); and the refund notify, whose
 * refund (out_refund_no, out_trade_no, refund_status, refund_fee) travels
 * encrypted in req_info (chan_wx_req_info): it has no sign, and a req_info
 * that does not decrypt with the merchant key is refused like a bad
 * signature. A refund notify is a refund event ("wechat.refund.notify."
 * and its status) about our refund key, processed like any refund event:
 * the refund is queried and its state applied.
 *
 * Its words in the core's: trade_state SUCCESS and REFUND (paid, then a
 * refund was asked) are CHAN_ORDER_SUCCEEDED; NOTPAY pending; USERPAYING
 * processing; PAYERROR declined; CLOSED and REVOKED canceled. Only a paid
 * order names its total_fee: for the other states the amount is unknown
 * (chan_order.amount_unknown). Refund
 * status SUCCESS succeeded, PROCESSING pending, CHANGE failed, REFUNDCLOSE
 * canceled. The channel's id of an order is our order number
 * (out_trade_no), the id of a refund our refund key (out_refund_no, the
 * outbox command's idempotency key): both are known before the channel
 * answers, so a lost answer is resolved by querying. It has no events
 * list (poll_events NULL): its events are the notifies relayed by
 * `frontdesk inbox ingest` and the states found by querying orders.
 *
 * Its settlement is the daily trade bill (downloadbill, bill_type ALL):
 * one bill per China calendar day (UTC+8) that the window touches, read by
 * settle_wechat_bill_read (settle-file.h: its summary must add up), the
 * lines created in the window kept. The bill is plain text and carries no
 * signature (the channel signs none); a day without trades is the error
 * "No Bill Exist", an empty day. A line's order_id and order_no are our
 * order number (out_trade_no, the channel's id of the order here), its
 * refund_id our refund key (out_refund_no); the channel's own transaction
 * and refund numbers are its id and source.
 *
 * Callers: pipe-provider.c (through struct chan_ops), tests.
 */
#ifndef FD_CHAN_WECHAT_H
#define FD_CHAN_WECHAT_H

#include <signal.h>
#include <stddef.h>

#include "channel.h"

struct pipe_log;

struct chan_wechat_cfg {
	const char *base_url;                      /* https://api.mch.weixin.qq.com, or the fake */
	const char *appid, *mch_id;                /* the merchant's account */
	const char *key;                           /* the merchant key (secrets file) */
	const char *notify_url;                    /* where the channel sends notifies */
	int sign_type;                             /* enum chan_wx_sign_type: the account's */
	long connect_timeout_ms, total_timeout_ms; /* 0: defaults */
	long low_speed_secs;                       /* 0: default */
	struct pipe_log *log;                      /* NULL: no request log */
	volatile sig_atomic_t *stop;               /* NULL: never stopped */
};

extern const struct chan_ops chan_wechat_ops;

/* chan_wechat_open - a context for chan_wechat_ops (release with
 * ops->close); the strings are copied. FD_EINVAL for a URL pipe-http
 * refuses, or a missing key, appid or mch_id. */
int chan_wechat_open(const struct chan_wechat_cfg *cfg, struct chan_ctx **out);

/* One parameter of a message. */
struct chan_wx_param {
	char *key, *value;
};

/* A message: its parameters in the order read (owned). */
struct chan_wx_msg {
	struct chan_wx_param *p;
	size_t n;
};

/* chan_wx_parse - read the XML message in buf (len bytes) with expat: the
 * children of the root element <xml>, each an element holding text or
 * CDATA. FD_EINVAL with a reason for anything else: not XML, another root,
 * nested elements, a repeated name, a document type declaration (so no
 * entity can be declared and expanded). Free with chan_wx_free. */
int chan_wx_parse(const char *buf, size_t len, struct chan_wx_msg *m);

/* chan_wx_get - the value of key in m, NULL when absent. */
const char *chan_wx_get(const struct chan_wx_msg *m, const char *key);

/* chan_wx_free - free what m owns and zero it. */
void chan_wx_free(struct chan_wx_msg *m);

/* chan_wx_req_info - decrypt and read the req_info of a refund notify
 * (v2): base64 text of AES-256-ECB ciphertext with PKCS#7 padding, keyed
 * with the 32 characters of the lower-case hex MD5 of the merchant key
 * (OpenSSL EVP), whose plaintext is <root><out_refund_no>...</root>, read
 * with expat like any message into *m (free with chan_wx_free). FD_EINVAL
 * with a reason for text that is not base64, does not decrypt with key
 * (wrong padding), or is not such a document. */
int chan_wx_req_info(const char *key, const char *req_info, struct chan_wx_msg *m);

/* How messages are signed: the merchant account is set up for one type. */
enum chan_wx_sign_type {
	CHAN_WX_HMAC_SHA256 = 0, /* the default (a provider setting can say MD5) */
	CHAN_WX_MD5,
};

/* chan_wx_sign_type_parse - "HMAC-SHA256" (also NULL or "": the default)
 * or "MD5" into *out; FD_EINVAL with a reason for anything else. */
int chan_wx_sign_type_parse(const char *s, enum chan_wx_sign_type *out);

/* chan_wx_sign_type_name - "HMAC-SHA256" or "MD5", as sign_type says it. */
const char *chan_wx_sign_type_name(enum chan_wx_sign_type t);

/* chan_wx_settings_sign_type - the sign type a provider's settings (its
 * JSON, NULL: none) name under "sign_type", HMAC-SHA256 when none; FD_EINVAL
 * for a name that is neither. */
int chan_wx_settings_sign_type(const char *settings, enum chan_wx_sign_type *out);

/* chan_wx_sign - the signature of m with merchant key: its parameters but
 * "sign" and those with an empty value, sorted by name (byte order), as
 * "k=v" joined with "&", then "&key=" key; of that text the HMAC-SHA256
 * keyed with key (64 digits) or the MD5 (32 digits), in upper-case hex
 * (out[65]). FD_EINVAL (FD_EIO) when it cannot be computed. */
int chan_wx_sign(const struct chan_wx_msg *m, const char *key, enum chan_wx_sign_type type,
                 char out[65]);

/* chan_wx_verify - 0 when m is signed with type and its "sign" equals
 * (compared in constant time) chan_wx_sign(m, key, type); FD_EINVAL with a
 * reason otherwise. The type m is signed with is its sign_type (empty:
 * none), or absent when it names none: an answer to a request is signed
 * with the request's type and names none; a payment notify that names none
 * is signed with MD5. A message signed with another type than type is
 * refused. */
int chan_wx_verify(const struct chan_wx_msg *m, const char *key, enum chan_wx_sign_type type,
                   enum chan_wx_sign_type absent);

#endif
