/*
 * chan-wechat.c - the WeChat Pay style adapter (see chan-wechat.h).
 *
 * Invariants: XML is read by expat only, and a document type declaration
 * stops the parse (no entity is ever declared or expanded); a request is
 * written only from values that cannot break out of their CDATA ("]]>" is
 * refused) under names of [a-z0-9_]; every answer's signature is verified
 * before anything in it is believed; the merchant key never leaves this
 * file's memory (it is not sent: the signature stands for it) and is wiped
 * on close; amounts are read as plain decimal digits within +/-2^53.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <expat.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chan-wechat.h"
#include "crypto-dyn.h"
#include "err.h"
#include "i18n.h"
#include "pipe-http.h"
#include "pipe-sig.h"
#include "settle-file.h"
#include "strbuf.h"
#include "xalloc.h"

struct chan_ctx {
	struct pipe_http http;
	char *base_url, *appid, *mch_id, *key, *notify_url;
	enum chan_wx_sign_type sign_type; /* the account's: every request and answer */
};

/* ---------------------------------------------------------------- messages */

const char *chan_wx_get(const struct chan_wx_msg *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->p[i].key, key))
			return m->p[i].value;
	return NULL;
}

static void msg_add(struct chan_wx_msg *m, const char *key, const char *value)
{
	m->p = xrealloc(m->p, (m->n + 1) * sizeof *m->p);
	m->p[m->n].key = xstrdup(key);
	m->p[m->n].value = xstrdup(value ? value : "");
	m->n++;
}

void chan_wx_free(struct chan_wx_msg *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->p[i].key);
		free(m->p[i].value);
	}
	free(m->p);
	memset(m, 0, sizeof *m);
}

/* What the expat handlers share. */
struct parse {
	XML_Parser x;
	struct chan_wx_msg *m;
	int depth;
	struct strbuf text; /* the current child's text */
	char name[64];
	const char *root; /* the root element's name: "xml" (a message), "root" (req_info) */
	char why[200];    /* set when the document is refused */
};

static void refuse(struct parse *p, const char *why)
{
	if (!*p->why)
		snprintf(p->why, sizeof p->why, "%s", why);
	XML_StopParser(p->x, XML_FALSE);
}

static void XMLCALL on_start(void *arg, const XML_Char *name, const XML_Char **attr)
{
	struct parse *p = arg;

	(void)attr;
	p->depth++;
	if (p->depth == 1 && strcmp(name, p->root))
		refuse(p, !strcmp(p->root, "xml")
		              ? _("the message's root element is not <xml>")
		              : _("the decrypted req_info's root element is not <root>"));
	else if (p->depth == 2) {
		if (strlen(name) >= sizeof p->name)
			refuse(p, _("a parameter name is too long"));
		snprintf(p->name, sizeof p->name, "%s", name);
		sb_free(&p->text);
	} else if (p->depth > 2)
		refuse(p, _("the message has nested elements"));
}

static void XMLCALL on_end(void *arg, const XML_Char *name)
{
	struct parse *p = arg;

	(void)name;
	if (p->depth == 2) {
		if (chan_wx_get(p->m, p->name))
			refuse(p, _("a parameter is repeated in the message"));
		else
			msg_add(p->m, p->name, sb_cstr(&p->text));
		sb_free(&p->text);
	}
	p->depth--;
}

static void XMLCALL on_text(void *arg, const XML_Char *s, int len)
{
	struct parse *p = arg;

	if (p->depth == 2)
		sb_add(&p->text, s, (size_t)len);
	else if (p->depth == 1) {
		int i;

		for (i = 0; i < len; i++)
			if (!isspace((unsigned char)s[i])) {
				refuse(p, _("the message has text outside its parameters"));
				return;
			}
	}
}

static void XMLCALL on_doctype(void *arg, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal;
	refuse(arg, _("the message declares a document type"));
}

/* Read buf (len bytes) as a message whose root element is root. */
static int parse_root(const char *buf, size_t len, const char *root, struct chan_wx_msg *m)
{
	struct parse p;
	int rc = 0;

	memset(m, 0, sizeof *m);
	memset(&p, 0, sizeof p);
	p.root = root;
	if (len > 1048576)
		return err_set(FD_EINVAL, _("the message is too large"));
	p.x = XML_ParserCreate("UTF-8");
	if (!p.x)
		return err_set(FD_EIO, _("cannot start the XML reader"));
	p.m = m;
	XML_SetUserData(p.x, &p);
	XML_SetElementHandler(p.x, on_start, on_end);
	XML_SetCharacterDataHandler(p.x, on_text);
	XML_SetStartDoctypeDeclHandler(p.x, on_doctype);
	if (XML_Parse(p.x, buf, (int)len, XML_TRUE) != XML_STATUS_OK || *p.why) {
		if (*p.why)
			rc = err_set(FD_EINVAL, "%s", p.why);
		else
			rc = err_set(FD_EINVAL, _("the message is not XML: %s"),
			             XML_ErrorString(XML_GetErrorCode(p.x)));
	}
	sb_free(&p.text);
	XML_ParserFree(p.x);
	if (rc)
		chan_wx_free(m);
	return rc;
}

int chan_wx_parse(const char *buf, size_t len, struct chan_wx_msg *m)
{
	return parse_root(buf, len, "xml", m);
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const struct chan_wx_param *const *)a)->key,
	              (*(const struct chan_wx_param *const *)b)->key);
}

int chan_wx_sign_type_parse(const char *s, enum chan_wx_sign_type *out)
{
	if (!s || !*s || !strcmp(s, "HMAC-SHA256")) {
		*out = CHAN_WX_HMAC_SHA256;
		return 0;
	}
	if (!strcmp(s, "MD5")) {
		*out = CHAN_WX_MD5;
		return 0;
	}
	return err_set(FD_EINVAL, _("the sign type is HMAC-SHA256 or MD5, not '%s'"), s);
}

const char *chan_wx_sign_type_name(enum chan_wx_sign_type t)
{
	return t == CHAN_WX_MD5 ? "MD5" : "HMAC-SHA256";
}

int chan_wx_settings_sign_type(const char *settings, enum chan_wx_sign_type *out)
{
	cJSON *set = cJSON_Parse(settings && *settings ? settings : "{}");
	cJSON *t = cJSON_GetObjectItemCaseSensitive(set, "sign_type");
	int rc = chan_wx_sign_type_parse(cJSON_IsString(t) ? t->valuestring : NULL, out);

	cJSON_Delete(set);
	return rc;
}

int chan_wx_sign(const struct chan_wx_msg *m, const char *key, enum chan_wx_sign_type type,
                 char out[65])
{
	static const char hex[] = "0123456789ABCDEF";
	const struct chan_wx_param **v = xcalloc(m->n + 1, sizeof *v);
	struct strbuf sb = {0};
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t i, n = 0;
	int rc;

	out[0] = '\0';
	for (i = 0; i < m->n; i++)
		if (strcmp(m->p[i].key, "sign") && *m->p[i].value)
			v[n++] = &m->p[i];
	qsort(v, n, sizeof *v, by_key);
	for (i = 0; i < n; i++)
		sb_printf(&sb, "%s%s=%s", i ? "&" : "", v[i]->key, v[i]->value);
	sb_printf(&sb, "%skey=%s", n ? "&" : "", key);
	if (type == CHAN_WX_MD5) {
		/* MD5 of the same text, with the key at its end as the only secret */
		if ((rc = crypto_load()) == 0 &&
		    (!EVP_Digest(sb_cstr(&sb), strlen(sb_cstr(&sb)), md, &mdlen, EVP_md5(), NULL) ||
		     mdlen != 16))
			rc = err_set(FD_EIO, _("cannot compute the MD5 signature"));
		for (i = 0; !rc && i < 16; i++) {
			out[2 * i] = hex[md[i] >> 4];
			out[2 * i + 1] = hex[md[i] & 15];
		}
		if (!rc)
			out[32] = '\0';
		OPENSSL_cleanse(md, sizeof md);
	} else {
		rc = chan_hmac_sha256_hex(key, sb_cstr(&sb), strlen(sb_cstr(&sb)), NULL, 0, out);
		for (i = 0; !rc && out[i]; i++)
			out[i] = (char)toupper((unsigned char)out[i]);
	}
	OPENSSL_cleanse((void *)sb_cstr(&sb), strlen(sb_cstr(&sb)));
	sb_free(&sb);
	free(v);
	return rc;
}

int chan_wx_verify(const struct chan_wx_msg *m, const char *key, enum chan_wx_sign_type type,
                   enum chan_wx_sign_type absent)
{
	const char *sign = chan_wx_get(m, "sign"), *declared = chan_wx_get(m, "sign_type");
	enum chan_wx_sign_type used = absent;
	char want[65];
	size_t len;
	int rc;

	if (!key || !*key)
		return err_set(FD_EINVAL, _("no merchant key to verify the signature with"));
	if (declared && *declared && chan_wx_sign_type_parse(declared, &used) != 0)
		return err_set(FD_EINVAL, _("the message is signed with an unknown sign type"));
	if (used != type)
		return err_set(FD_EINVAL,
		               _("the message is signed with %1$s, but the account is set up for "
		                 "%2$s (the provider's sign type)"),
		               chan_wx_sign_type_name(used), chan_wx_sign_type_name(type));
	len = type == CHAN_WX_MD5 ? 32 : 64;
	if (!sign || strlen(sign) != len)
		return err_set(FD_EINVAL, _("the message carries no signature"));
	if ((rc = chan_wx_sign(m, key, type, want)) != 0)
		return rc;
	if (CRYPTO_memcmp(want, sign, len) != 0)
		return err_set(FD_EINVAL, _("the message's signature does not match"));
	return 0;
}

/* ---------------------------------------------------------------- context */

int chan_wechat_open(const struct chan_wechat_cfg *cfg, struct chan_ctx **out)
{
	struct chan_ctx *c;
	int rc;

	*out = NULL;
	if ((rc = pipe_http_url_ok(cfg->base_url)) != 0)
		return rc;
	if (!cfg->key || !*cfg->key)
		return err_set(FD_EINVAL,
		               _("the channel needs its merchant key in the secrets file"));
	if (!cfg->appid || !*cfg->appid || !cfg->mch_id || !*cfg->mch_id)
		return err_set(FD_EINVAL,
		               _("the channel needs its appid and mch_id in the secrets file"));
	c = xcalloc(1, sizeof *c);
	c->base_url = xstrdup(cfg->base_url);
	c->appid = xstrdup(cfg->appid);
	c->mch_id = xstrdup(cfg->mch_id);
	c->key = xstrdup(cfg->key);
	c->notify_url = xstrdup(cfg->notify_url ? cfg->notify_url : "https://localhost/notify");
	c->sign_type = cfg->sign_type == CHAN_WX_MD5 ? CHAN_WX_MD5 : CHAN_WX_HMAC_SHA256;
	/* no API key: the key is never sent, requests are signed with it */
	pipe_http_setup(&c->http, "wechat", c->base_url, cfg->connect_timeout_ms,
	                cfg->total_timeout_ms, cfg->low_speed_secs, cfg->log, cfg->stop);
	*out = c;
	return 0;
}

static void wechat_close(struct chan_ctx *c)
{
	if (!c)
		return;
	pipe_http_release(&c->http);
	OPENSSL_cleanse(c->key, strlen(c->key));
	free(c->key);
	free(c->base_url);
	free(c->appid);
	free(c->mch_id);
	free(c->notify_url);
	free(c);
}

/* ---------------------------------------------------------------- calls */

static int bad_data(struct chan_status *st, const char *why)
{
	snprintf(st->reason, sizeof st->reason, "%s", why);
	return CHAN_BADDATA;
}

/* The request body of m: <xml><k><![CDATA[v]]></k>...</xml>. -1 when a
 * name or a value could break the document. */
static int write_xml(const struct chan_wx_msg *m, struct strbuf *sb)
{
	size_t i, j;

	sb_puts(sb, "<xml>");
	for (i = 0; i < m->n; i++) {
		for (j = 0; m->p[i].key[j]; j++)
			if (!islower((unsigned char)m->p[i].key[j]) &&
			    !isdigit((unsigned char)m->p[i].key[j]) && m->p[i].key[j] != '_')
				return -1;
		if (strstr(m->p[i].value, "]]>"))
			return -1;
		sb_printf(sb, "<%s><![CDATA[%s]]></%s>", m->p[i].key, m->p[i].value, m->p[i].key);
	}
	sb_puts(sb, "</xml>");
	return 0;
}

/* A decimal amount: digits only, 1..15 of them. */
static int read_fen(const char *s, const char *what, int64_t *out)
{
	size_t i, n = s ? strlen(s) : 0;
	int64_t v = 0;

	if (n < 1 || n > 15)
		return err_set(FD_EINVAL, _("the channel's %s is missing or not a whole number"),
		               what);
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return err_set(FD_EINVAL, _("the channel's %s is not a whole number"),
			               what);
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* A currency: three letters (default CNY: the channel's own). */
static int read_cur(const char *s, char out[4])
{
	int i;

	if (!s || !*s)
		s = "CNY";
	if (strlen(s) != 3)
		return err_set(FD_EINVAL, _("the channel's currency is not three letters"));
	for (i = 0; i < 3; i++) {
		if (!isalpha((unsigned char)s[i]))
			return err_set(FD_EINVAL, _("the channel's currency is not three letters"));
		out[i] = (char)toupper((unsigned char)s[i]);
	}
	out[3] = '\0';
	return 0;
}

/* The request m completed with the merchant's account, a nonce and its
 * signature, as the XML body in *body (CHAN_OK; caller frees), or
 * CHAN_BADDATA with the reason in *st. */
static int signed_body(struct chan_ctx *c, struct chan_wx_msg *m, struct strbuf *body,
                       struct chan_status *st)
{
	char nonce[17], sign[65];

	if (chan_random_hex(nonce) != 0)
		return bad_data(st, err_msg());
	msg_add(m, "appid", c->appid);
	msg_add(m, "mch_id", c->mch_id);
	msg_add(m, "nonce_str", nonce);
	/* the SDK's way: the type is named in every request (MD5 is also the
	 * channel's default when it is not); the answer is signed with it */
	msg_add(m, "sign_type", chan_wx_sign_type_name(c->sign_type));
	if (chan_wx_sign(m, c->key, c->sign_type, sign) != 0)
		return bad_data(st, err_msg());
	msg_add(m, "sign", sign);
	if (write_xml(m, body) != 0) {
		sb_free(body);
		return bad_data(st, _("a value cannot be written into the request"));
	}
	return CHAN_OK;
}

/* POST the signed request m to path and read the signed answer into *ans.
 * safe: the request changes nothing (a lost answer is CHAN_RETRY, else
 * CHAN_UNKNOWN). Business failures: ORDERNOTEXIST / REFUNDNOTEXIST are
 * CHAN_NOTFOUND, SYSTEMERROR (or a failed return_code saying so) CHAN_RETRY,
 * others CHAN_REFUSED. */
static int call(struct chan_ctx *c, const char *kw, const char *path, struct chan_wx_msg *m,
                int safe, struct chan_wx_msg *ans, struct chan_status *st)
{
	struct pipe_http_resp r;
	struct strbuf body = {0};
	const char *v, *err;
	int code;

	memset(ans, 0, sizeof *ans);
	memset(st, 0, sizeof *st);
	if ((code = signed_body(c, m, &body, st)) != CHAN_OK)
		return code;
	code = pipe_http_call(&c->http, kw, "POST", path, NULL, sb_cstr(&body), NULL, &r, st);
	sb_free(&body);
	if (code != CHAN_OK)
		goto out;
	if (!r.body || chan_wx_parse(r.body, r.len, ans) != 0) {
		snprintf(st->reason, sizeof st->reason, "%s",
		         _("the channel's answer is not complete XML (cut short?)"));
		code = safe ? CHAN_RETRY : CHAN_UNKNOWN;
		goto out;
	}
	v = chan_wx_get(ans, "return_code");
	if (!v || strcmp(v, "SUCCESS")) {
		/* not processed at all: no signature to check, nothing happened */
		v = chan_wx_get(ans, "return_msg");
		snprintf(st->reason, sizeof st->reason, _("the channel refused the request: %s"),
		         v ? v : "?");
		code = v && strstr(v, "SYSTEMERROR") ? CHAN_RETRY : CHAN_REFUSED;
		goto out;
	}
	/* an answer names no sign_type: it is signed with the request's */
	if (chan_wx_verify(ans, c->key, c->sign_type, c->sign_type) != 0) {
		code = bad_data(st, err_msg());
		goto out;
	}
	v = chan_wx_get(ans, "result_code");
	if (!v || strcmp(v, "SUCCESS")) {
		err = chan_wx_get(ans, "err_code");
		snprintf(st->reason, sizeof st->reason, _("the channel says %s: %s"),
		         err ? err : "FAIL",
		         chan_wx_get(ans, "err_code_des") ? chan_wx_get(ans, "err_code_des") : "");
		if (err && (!strcmp(err, "ORDERNOTEXIST") || !strcmp(err, "REFUNDNOTEXIST")))
			code = CHAN_NOTFOUND;
		else if (err && (!strcmp(err, "SYSTEMERROR") || !strcmp(err, "BIZERR_NEED_RETRY")))
			code = safe ? CHAN_RETRY : CHAN_UNKNOWN;
		else
			code = CHAN_REFUSED;
	}
out:
	if (code != CHAN_OK)
		chan_wx_free(ans);
	pipe_http_resp_free(&r);
	return code;
}

/* trade_state in the core's words (chan-wechat.h). */
static enum chan_order_state trade_state(const char *s)
{
	if (!strcmp(s, "SUCCESS") || !strcmp(s, "REFUND"))
		return CHAN_ORDER_SUCCEEDED;
	if (!strcmp(s, "CLOSED") || !strcmp(s, "REVOKED"))
		return CHAN_ORDER_CANCELED;
	if (!strcmp(s, "USERPAYING"))
		return CHAN_ORDER_PROCESSING;
	if (!strcmp(s, "PAYERROR"))
		return CHAN_ORDER_DECLINED;
	return CHAN_ORDER_PENDING; /* NOTPAY, and any word we do not know */
}

/* A refund's status in the core's words. */
static enum chan_refund_state refund_state(const char *s)
{
	if (!strcmp(s, "SUCCESS"))
		return CHAN_REFUND_SUCCEEDED;
	if (!strcmp(s, "CHANGE"))
		return CHAN_REFUND_FAILED;
	if (!strcmp(s, "REFUNDCLOSE"))
		return CHAN_REFUND_CANCELED;
	return CHAN_REFUND_PENDING;
}

/* Copy s (required) into buf of n bytes. */
static int take(const char *s, const char *what, char *buf, size_t n)
{
	if (!s || !*s || strlen(s) >= n)
		return err_set(FD_EINVAL, _("the channel's %s is missing or too long"), what);
	snprintf(buf, n, "%s", s);
	return 0;
}

/* An order from an orderquery answer or a payment notify. Only an order
 * in trade_state SUCCESS is sure to name its total_fee: for the other
 * states (REFUND too) orderquery answers out_trade_no (and attach) alone,
 * and the amount is then unknown (o->amount_unknown), never guessed. attach is our
 * invoice id when it is a number (wechat_create puts it there). */
static int read_trade(const struct chan_wx_msg *a, struct chan_order *o)
{
	const char *state = chan_wx_get(a, "trade_state"), *attach = chan_wx_get(a, "attach");
	int rc;

	memset(o, 0, sizeof *o);
	if (!state) /* a notify says result_code instead */
		state = !strcmp(chan_wx_get(a, "result_code") ? chan_wx_get(a, "result_code") : "",
		                "SUCCESS")
		            ? "SUCCESS"
		            : "PAYERROR";
	if ((rc = take(chan_wx_get(a, "out_trade_no"), "out_trade_no", o->id, sizeof o->id)) ||
	    (rc = take(state, "trade_state", o->status, sizeof o->status)))
		return rc;
	snprintf(o->order_no, sizeof o->order_no, "%.64s", o->id);
	o->state = trade_state(o->status);
	if (strcmp(o->status, "SUCCESS") && !chan_wx_get(a, "total_fee"))
		o->amount_unknown = 1;
	else if ((rc = read_fen(chan_wx_get(a, "total_fee"), "total_fee", &o->amount)) ||
	         (rc = read_cur(chan_wx_get(a, "fee_type"), o->currency)))
		return rc;
	if (attach && *attach && strlen(attach) <= 15 &&
	    strspn(attach, "0123456789") == strlen(attach) && *attach != '0')
		o->invoice_id = strtoll(attach, NULL, 10);
	if (o->state == CHAN_ORDER_SUCCEEDED && !o->amount_unknown) {
		const char *paid = chan_wx_get(a, "cash_fee") ? chan_wx_get(a, "cash_fee")
		                                              : chan_wx_get(a, "total_fee");

		if ((rc = read_fen(paid, "cash_fee", &o->amount_received)))
			return rc;
	}
	return 0;
}

static int id_ok(const char *id)
{
	size_t i, n = id ? strlen(id) : 0;

	if (n < 1 || n > 64)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)id[i]) && id[i] != '_' && id[i] != '-')
			return 0;
	return 1;
}

/* Ask path about the object whose id (our number for it) is id, under the
 * parameter name param: a signed query answer in *a (chan_wx_free it). */
static int ask(struct chan_ctx *c, const char *kw, const char *path, const char *param,
               const char *id, struct chan_wx_msg *a, struct chan_status *st)
{
	struct chan_wx_msg m = {0};
	int code;

	memset(a, 0, sizeof *a);
	memset(st, 0, sizeof *st);
	if (!id_ok(id))
		return bad_data(st, _("the id is not an id"));
	msg_add(&m, param, id);
	code = call(c, kw, path, &m, 1, a, st);
	chan_wx_free(&m);
	return code;
}

static int wechat_query_order(struct chan_ctx *c, const char *id, struct chan_order *out,
                              struct chan_status *st)
{
	struct chan_wx_msg a;
	int code = ask(c, "query_order", "/pay/orderquery", "out_trade_no", id, &a, st);

	memset(out, 0, sizeof *out);
	if (code == CHAN_OK && read_trade(&a, out) != 0)
		code = bad_data(st, err_msg());
	chan_wx_free(&a);
	return code;
}

static int wechat_create(struct chan_ctx *c, const struct chan_create *in, struct chan_order *out,
                         struct chan_status *st)
{
	struct chan_wx_msg m = {0}, a;
	char num[24];
	int code;

	memset(out, 0, sizeof *out);
	memset(st, 0, sizeof *st);
	if (!id_ok(in->order_no))
		return bad_data(st, _("the order number cannot be an out_trade_no"));
	if (in->amount <= 0 || !in->currency || strlen(in->currency) != 3)
		return bad_data(st, _("a payment needs an amount and a currency"));
	msg_add(&m, "body", in->description ? in->description : in->order_no);
	msg_add(&m, "out_trade_no", in->order_no);
	snprintf(num, sizeof num, "%lld", (long long)in->amount);
	msg_add(&m, "total_fee", num);
	msg_add(&m, "fee_type", in->currency);
	if (in->invoice_id) {
		snprintf(num, sizeof num, "%lld", (long long)in->invoice_id);
		msg_add(&m, "attach", num);
	}
	msg_add(&m, "notify_url", c->notify_url);
	msg_add(&m, "trade_type", "NATIVE");
	/* required with NATIVE: the product the code is for; our order number */
	msg_add(&m, "product_id", in->order_no);
	msg_add(&m, "spbill_create_ip", "127.0.0.1");
	/* the channel keeps one order per out_trade_no: a resend is the same order */
	code = call(c, "create_payment", "/pay/unifiedorder", &m, 0, &a, st);
	chan_wx_free(&m);
	if (code == CHAN_OK) {
		/* what we asked for is the order; the answer's prepay_id is not
		 * ours to keep, its code_url (the page to pay on) is */
		snprintf(out->id, sizeof out->id, "%s", in->order_no);
		snprintf(out->order_no, sizeof out->order_no, "%s", in->order_no);
		snprintf(out->status, sizeof out->status, "NOTPAY");
		out->state = CHAN_ORDER_PENDING;
		out->amount = in->amount;
		out->invoice_id = in->invoice_id;
		if (read_cur(in->currency, out->currency) != 0)
			code = bad_data(st, err_msg());
		else if (!chan_wx_get(&a, "prepay_id"))
			code = bad_data(st, _("the channel's answer names no prepay_id"));
		else if (chan_wx_get(&a, "code_url") &&
		         strlen(chan_wx_get(&a, "code_url")) < sizeof out->page_url)
			/* Native: the address the customer's phone scans to pay;
			 * one a resend answers again (the same order) */
			snprintf(out->page_url, sizeof out->page_url, "%s",
			         chan_wx_get(&a, "code_url"));
	}
	chan_wx_free(&a);
	return code;
}

/* A refund from a refund or refundquery answer (the first refund, _0, of
 * a query). */
static int read_refund(const struct chan_wx_msg *a, const char *suffix, struct chan_refund *r)
{
	char k[40];
	const char *status;
	int rc;

	memset(r, 0, sizeof *r);
	snprintf(k, sizeof k, "out_refund_no%s", suffix);
	if ((rc = take(chan_wx_get(a, k), "out_refund_no", r->id, sizeof r->id)) ||
	    (rc = take(chan_wx_get(a, "out_trade_no"), "out_trade_no", r->order_id,
	               sizeof r->order_id)))
		return rc;
	snprintf(k, sizeof k, "refund_fee%s", suffix);
	if ((rc = read_fen(chan_wx_get(a, k), "refund_fee", &r->amount)) ||
	    (rc = read_cur(chan_wx_get(a, "refund_fee_type") ? chan_wx_get(a, "refund_fee_type")
	                                                     : chan_wx_get(a, "fee_type"),
	                   r->currency)))
		return rc;
	snprintf(k, sizeof k, "refund_status%s", suffix);
	status = chan_wx_get(a, k);
	/* the answer to a refund request has no status yet: it is being processed */
	snprintf(r->status, sizeof r->status, "%s", status ? status : "PROCESSING");
	r->state = refund_state(r->status);
	return 0;
}

/* The total of order id (trade_state REFUND: orderquery names no amount)
 * from refundquery by out_trade_no, whose answer names the order's
 * total_fee and fee_type, into o. */
static int refunded_total(struct chan_ctx *c, const char *id, struct chan_order *o,
                          struct chan_status *st)
{
	struct chan_wx_msg a;
	int code = ask(c, "query_refund", "/pay/refundquery", "out_trade_no", id, &a, st);

	if (code == CHAN_OK &&
	    (read_fen(chan_wx_get(&a, "total_fee"), "total_fee", &o->amount) != 0 ||
	     read_cur(chan_wx_get(&a, "fee_type"), o->currency) != 0))
		code = bad_data(st, err_msg());
	else if (code == CHAN_OK)
		o->amount_unknown = 0;
	chan_wx_free(&a);
	return code;
}

static int wechat_refund(struct chan_ctx *c, const char *payment_id, int64_t amount,
                         const char *idem_key, struct chan_refund *out, struct chan_status *st)
{
	struct chan_wx_msg m = {0}, a;
	struct chan_order o;
	char num[24];
	int code;

	memset(out, 0, sizeof *out);
	memset(st, 0, sizeof *st);
	if (!id_ok(idem_key))
		return bad_data(st,
		                _("a refund is asked for only with a key of up to 64 characters"));
	if (!id_ok(payment_id) || amount <= 0)
		return bad_data(st, _("a refund needs a payment id and an amount"));
	/* the refund names the order's total: ask the channel for it */
	if ((code = wechat_query_order(c, payment_id, &o, st)) != CHAN_OK)
		return code;
	if (o.state != CHAN_ORDER_SUCCEEDED)
		return bad_data(st, _("the channel does not say the order was paid: no refund is "
		                      "asked"));
	if (o.amount_unknown && (code = refunded_total(c, payment_id, &o, st)) != CHAN_OK)
		return code;
	msg_add(&m, "out_trade_no", payment_id);
	msg_add(&m, "out_refund_no", idem_key);
	snprintf(num, sizeof num, "%lld", (long long)o.amount);
	msg_add(&m, "total_fee", num);
	snprintf(num, sizeof num, "%lld", (long long)amount);
	msg_add(&m, "refund_fee", num);
	msg_add(&m, "refund_fee_type", o.currency);
	code = call(c, "refund", "/secapi/pay/refund", &m, 0, &a, st);
	chan_wx_free(&m);
	if (code == CHAN_OK && read_refund(&a, "", out) != 0)
		code = bad_data(st, err_msg());
	chan_wx_free(&a);
	return code;
}

static int wechat_query_refund(struct chan_ctx *c, const char *id, struct chan_refund *out,
                               struct chan_status *st)
{
	struct chan_wx_msg a;
	int code = ask(c, "query_refund", "/pay/refundquery", "out_refund_no", id, &a, st);

	memset(out, 0, sizeof *out);
	if (code == CHAN_OK && read_refund(&a, "_0", out) != 0)
		code = bad_data(st, err_msg());
	chan_wx_free(&a);
	return code;
}

/* ---------------------------------------------------------------- settlement */

#define CHINA_OFFSET    (8 * 3600) /* the channel's days are China's (UTC+8) */
#define SETTLE_MAX_DAYS 62         /* the longest window fetched at once */

/* The start (Unix seconds) of the China day that t is in. */
static int64_t china_day(int64_t t)
{
	int64_t l = t + CHINA_OFFSET, d = l / 86400;

	if (l % 86400 < 0)
		d--;
	return d * 86400 - CHINA_OFFSET;
}

/* The trade bill (bill_type ALL) of the China day starting at day, read
 * into *f: empty when the channel has no bill for that day ("No Bill
 * Exist"). The bill is text, not a signed message (the channel signs none);
 * what it says is checked by its own summary (settle-file.h). A refusal in
 * XML is mapped like any call's: SYSTEMERROR CHAN_RETRY, others
 * CHAN_REFUSED; a bill that cannot be read CHAN_BADDATA. */
static int download_bill(struct chan_ctx *c, int64_t day, struct settle_file *f,
                         struct chan_status *st)
{
	struct chan_wx_msg m = {0}, ans = {0};
	struct pipe_http_resp r = {0};
	struct strbuf body = {0};
	size_t keep = c->http.max_response, i;
	time_t t = (time_t)(day + CHINA_OFFSET);
	struct tm tm;
	char date[16];
	const char *v;
	int code;

	memset(f, 0, sizeof *f);
	if (!gmtime_r(&t, &tm) || !strftime(date, sizeof date, "%Y%m%d", &tm))
		return bad_data(st, _("the bill's date cannot be written"));
	msg_add(&m, "bill_date", date);
	msg_add(&m, "bill_type", "ALL");
	code = signed_body(c, &m, &body, st);
	chan_wx_free(&m);
	if (code != CHAN_OK)
		return code;
	/* a day's bill may be larger than any answer the other calls get */
	c->http.max_response = SETTLE_FILE_MAX;
	code = pipe_http_call(&c->http, "settlement", "POST", "/pay/downloadbill", NULL,
	                      sb_cstr(&body), NULL, &r, st);
	c->http.max_response = keep;
	sb_free(&body);
	if (code != CHAN_OK)
		goto out;
	for (i = 0;
	     r.body && i < r.len && (r.body[i] == ' ' || r.body[i] == '\n' || r.body[i] == '\r');
	     i++)
		;
	if (r.body && r.len - i >= 5 && !memcmp(r.body + i, "<xml>", 5)) {
		/* not a bill: why the channel gives none */
		if (chan_wx_parse(r.body, r.len, &ans) != 0) {
			snprintf(st->reason, sizeof st->reason, "%s",
			         _("the channel's answer is not complete XML (cut short?)"));
			code = CHAN_RETRY;
			goto out;
		}
		v = chan_wx_get(&ans, "return_msg");
		if (v && strstr(v, "No Bill Exist"))
			goto out; /* nothing happened that day */
		snprintf(st->reason, sizeof st->reason, _("the channel refused the request: %s"),
		         v ? v : "?");
		code = v && strstr(v, "SYSTEMERROR") ? CHAN_RETRY : CHAN_REFUSED;
		goto out;
	}
	if (settle_wechat_bill_read(r.body ? r.body : "", r.len, f) != 0)
		code = bad_data(st, err_msg());
out:
	chan_wx_free(&ans);
	pipe_http_resp_free(&r);
	return code;
}

/* The lines of every China day that [from, to) touches, one bill a day,
 * those created in [from, to) kept (line_no 0: fetched, not a file). */
static int wechat_settlement(struct chan_ctx *c, int64_t from, int64_t to,
                             struct chan_settle_line **out, size_t *n, struct chan_status *st)
{
	size_t cap = 0, i;
	int64_t day;
	int code = CHAN_OK;

	*out = NULL;
	*n = 0;
	memset(st, 0, sizeof *st);
	if (to <= from)
		return CHAN_OK;
	if (to - from > (int64_t)SETTLE_MAX_DAYS * 86400)
		return bad_data(st, _("a settlement is fetched for at most 62 days at once"));
	for (day = china_day(from); day < to && code == CHAN_OK; day += 86400) {
		struct settle_file f;

		if ((code = download_bill(c, day, &f, st)) != CHAN_OK)
			break;
		for (i = 0; i < f.n; i++) {
			if (f.lines[i].created < from || f.lines[i].created >= to)
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 64;
				*out = xrealloc(*out, cap * sizeof **out);
			}
			(*out)[*n] = f.lines[i];
			(*out)[*n].line_no = 0;
			(*n)++;
		}
		settle_file_free(&f);
	}
	if (code != CHAN_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return code;
}

/* ---------------------------------------------------------------- notifies */

/* Notifies are stored with the type "wechat.pay.notify" (our reading of a
 * message that has no type of its own): an order event; refund notifies
 * with "wechat.refund.notify." and their refund_status: a refund event. */
#define NOTIFY_TYPE        "wechat.pay.notify"
#define REFUND_NOTIFY_TYPE "wechat.refund.notify."

static enum chan_event_kind wechat_event_kind(const char *type, int *declined)
{
	*declined = 0;
	if (!strcmp(type, NOTIFY_TYPE))
		return CHAN_EVENT_ORDER;
	if (!strncmp(type, REFUND_NOTIFY_TYPE, strlen(REFUND_NOTIFY_TYPE)))
		return CHAN_EVENT_REFUND;
	return CHAN_EVENT_OTHER;
}

/* The bytes of base64 text b64 (no line breaks): *out (caller frees) gets
 * *n. FD_EINVAL when it is not base64. */
static int unbase64(const char *b64, unsigned char **out, size_t *n)
{
	EVP_ENCODE_CTX *ctx;
	size_t len = strlen(b64);
	int a = 0, b = 0, rc = 0;

	*out = NULL;
	*n = 0;
	if (len == 0 || len % 4 || len > 1048576 ||
	    strspn(b64, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                "abcdefghijklmnopqrstuvwxyz"
	                "0123456789+/=") != len)
		return err_set(FD_EINVAL, _("the refund notify's req_info is not base64"));
	if ((rc = crypto_load()) != 0)
		return rc;
	*out = xmalloc(len / 4 * 3 + 1);
	ctx = EVP_ENCODE_CTX_new();
	if (!ctx)
		rc = err_set(FD_EIO, _("cannot start the decoder"));
	else {
		EVP_DecodeInit(ctx);
		if (EVP_DecodeUpdate(ctx, *out, &a, (const unsigned char *)b64, (int)len) < 0 ||
		    EVP_DecodeFinal(ctx, *out + a, &b) != 1)
			rc = err_set(FD_EINVAL, _("the refund notify's req_info is not base64"));
	}
	EVP_ENCODE_CTX_free(ctx);
	if (rc) {
		free(*out);
		*out = NULL;
		return rc;
	}
	*n = (size_t)a + (size_t)b;
	return 0;
}

int chan_wx_req_info(const char *key, const char *req_info, struct chan_wx_msg *m)
{
	unsigned char md[EVP_MAX_MD_SIZE], *ct = NULL, *pt = NULL;
	unsigned int mdlen = 0, i;
	char aes_key[33];
	EVP_CIPHER_CTX *cx = NULL;
	size_t ctlen = 0;
	int a = 0, b = 0, rc;

	memset(m, 0, sizeof *m);
	if (!key || !*key || !req_info)
		return err_set(FD_EINVAL, _("a refund notify is read only with the merchant key"));
	if ((rc = crypto_load()) != 0)
		return rc;
	/* the AES-256 key: the lower-case hex MD5 of the merchant key, as text */
	if (!EVP_Digest(key, strlen(key), md, &mdlen, EVP_md5(), NULL) || mdlen != 16)
		return err_set(FD_EIO, _("cannot compute the refund notify's key"));
	for (i = 0; i < 16; i++)
		snprintf(aes_key + 2 * i, 3, "%02x", md[i]);
	if ((rc = unbase64(req_info, &ct, &ctlen)) != 0)
		goto out;
	if (ctlen == 0 || ctlen % 16) {
		rc = err_set(FD_EINVAL, _("the refund notify's req_info cannot be decrypted"));
		goto out;
	}
	pt = xmalloc(ctlen + 16);
	cx = EVP_CIPHER_CTX_new();
	/* PKCS#7 padding is OpenSSL's default, and checked by the final step */
	if (!cx ||
	    EVP_DecryptInit_ex(cx, EVP_aes_256_ecb(), NULL, (unsigned char *)aes_key, NULL) != 1 ||
	    EVP_DecryptUpdate(cx, pt, &a, ct, (int)ctlen) != 1 ||
	    EVP_DecryptFinal_ex(cx, pt + a, &b) != 1) {
		rc = err_set(FD_EINVAL,
		             _("the refund notify's req_info cannot be decrypted (another "
		               "merchant key, or damaged)"));
		goto out;
	}
	rc = parse_root((const char *)pt, (size_t)a + (size_t)b, "root", m);
out:
	EVP_CIPHER_CTX_free(cx);
	OPENSSL_cleanse(aes_key, sizeof aes_key);
	if (pt) {
		OPENSSL_cleanse(pt, ctlen + 16);
		free(pt);
	}
	free(ct);
	return rc;
}

/* A refund notify (v2): return_code SUCCESS and req_info, the refund's
 * fields encrypted with the merchant key; no sign (the encryption stands
 * for it). *r gets the refund it is about, when out is not NULL. */
static int read_refund_notify(const char *key, const struct chan_wx_msg *outer,
                              struct chan_refund *r)
{
	struct chan_wx_msg in;
	struct chan_refund tmp;
	const char *st;
	int rc;

	if ((rc = chan_wx_req_info(key, chan_wx_get(outer, "req_info"), &in)) != 0)
		return rc;
	if (!r)
		r = &tmp;
	memset(r, 0, sizeof *r);
	st = chan_wx_get(&in, "refund_status");
	if ((rc = take(chan_wx_get(&in, "out_refund_no"), "out_refund_no", r->id, sizeof r->id)) ||
	    (rc = take(chan_wx_get(&in, "out_trade_no"), "out_trade_no", r->order_id,
	               sizeof r->order_id)) ||
	    (rc = take(st, "refund_status", r->status, sizeof r->status)) ||
	    (rc = read_fen(chan_wx_get(&in, "refund_fee"), "refund_fee", &r->amount)) ||
	    (rc = read_cur(chan_wx_get(&in, "refund_fee_type") ? chan_wx_get(&in, "refund_fee_type")
	                                                       : chan_wx_get(&in, "fee_type"),
	                   r->currency)))
		goto out;
	if (!id_ok(r->id) || !id_ok(r->order_id) || !id_ok(r->status)) {
		rc = err_set(FD_EINVAL, _("the refund notify names no refund of ours"));
		goto out;
	}
	r->state = refund_state(r->status);
out:
	chan_wx_free(&in);
	return rc;
}

/* A payment notify: its id is the channel's transaction (or, for a failed
 * payment, our order number and the error), so a notify sent again is the
 * same event; its object is the order (out_trade_no). */
static int wechat_read_event(const char *secret, const void *raw, size_t len, struct chan_event *ev)
{
	struct chan_wx_msg m;
	struct chan_order o;
	const char *rc_, *tx;
	int rc;

	memset(ev, 0, sizeof *ev);
	if ((rc = chan_wx_parse(raw, len, &m)) != 0)
		return rc;
	rc_ = chan_wx_get(&m, "return_code");
	if (!rc_ || strcmp(rc_, "SUCCESS")) {
		rc = err_set(FD_EINVAL, _("the notify's return_code is not SUCCESS"));
		goto out;
	}
	if (chan_wx_get(&m, "req_info")) {
		/* a refund notify: its id is the refund and the status it reports,
		 * so a notify sent again is the same event and a later status a new
		 * one; its object is the refund (out_refund_no, our refund key) */
		struct chan_refund r;

		if ((rc = read_refund_notify(secret, &m, &r)) != 0)
			goto out;
		snprintf(ev->id, sizeof ev->id, "refund-notify:%.200s:%.39s", r.id, r.status);
		snprintf(ev->type, sizeof ev->type, "%s%s", REFUND_NOTIFY_TYPE, r.status);
		snprintf(ev->object_id, sizeof ev->object_id, "%s", r.id);
		snprintf(ev->object_type, sizeof ev->object_type, "refund");
		ev->kind = CHAN_EVENT_REFUND;
		ev->raw = raw;
		ev->raw_len = len;
		goto out;
	}
	if ((rc = read_trade(&m, &o)) != 0)
		goto out;
	tx = chan_wx_get(&m, "transaction_id");
	if (tx && *tx && strlen(tx) < 200)
		snprintf(ev->id, sizeof ev->id, "notify:%s", tx);
	else
		snprintf(ev->id, sizeof ev->id, "notify:%.200s:%.39s", o.id, o.status);
	snprintf(ev->type, sizeof ev->type, NOTIFY_TYPE);
	snprintf(ev->object_id, sizeof ev->object_id, "%s", o.id);
	snprintf(ev->object_type, sizeof ev->object_type, "trade");
	ev->kind = CHAN_EVENT_ORDER;
	ev->raw = raw;
	ev->raw_len = len;
out:
	chan_wx_free(&m);
	return rc;
}

/* The signature is inside the notify (a refund notify's proof is its
 * encrypted req_info): header is not used. */
static int wechat_verify(const char *secret, const char *header, const void *raw, size_t len,
                         int64_t now)
{
	enum chan_wx_sign_type type = CHAN_WX_MD5;
	struct chan_wx_msg m;
	const char *named;
	int rc;

	(void)header;
	(void)now;
	if ((rc = chan_wx_parse(raw, len, &m)) != 0)
		return rc;
	/* a refund notify carries no sign: only the merchant key decrypts its
	 * req_info into a refund, which is its proof */
	if (chan_wx_get(&m, "req_info") && !chan_wx_get(&m, "sign"))
		rc = read_refund_notify(secret, &m, NULL);
	else if ((named = chan_wx_get(&m, "sign_type")) && *named &&
	         chan_wx_sign_type_parse(named, &type) != 0)
		rc = err_set(FD_EINVAL, _("the message is signed with an unknown sign type"));
	else
		/* a payment notify is signed with the type it names, MD5 when it
		 * names none, whatever the account's type for requests (the
		 * official SDK's isPayResultNotifySignatureValid) */
		rc = chan_wx_verify(&m, secret, type, CHAN_WX_MD5);
	chan_wx_free(&m);
	return rc;
}

const struct chan_ops chan_wechat_ops = {
    .code = "wechat",
    .poll_events = NULL,
    .query_order = wechat_query_order,
    .create_payment = wechat_create,
    .refund = wechat_refund,
    .query_refund = wechat_query_refund,
    .settlement = wechat_settlement,
    .event_kind = wechat_event_kind,
    .read_event = wechat_read_event,
    .verify = wechat_verify,
    .secret_name = "api_key",
    .xml_events = 1,
    .needs_header = 0,
    .answer = "<xml><return_code><![CDATA[SUCCESS]]></return_code>"
              "<return_msg><![CDATA[OK]]></return_msg></xml>",
    .close = wechat_close,
};
