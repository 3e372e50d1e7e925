/*
 * settings.h - the settings file: "key = value" lines, '#' comments.
 *
 * Read in order, later files overriding earlier ones: /etc/frontdesk/config
 * (shop servers), then $XDG_CONFIG_HOME/frontdesk/config (or
 * ~/.config/frontdesk/config); FRONTDESK_CONFIG names one file to read
 * instead of the user's. A setgid frontdesk (privs.h) reads the system's
 * file only, and only when root or its group owns it and others cannot
 * write it. Keys are untranslated identifiers:
 *   timezone = America/New_York   (shop time zone; else TZ)
 *   currency = USD                (currency of new jobs)
 *   invoice_terms_days = 30
 *   shop_name = Shiny Cars        (printed invoices and receipts, print.c)
 *   shop_address = 1 Main St, Springfield
 *   data_dir = /var/lib/frontdesk (system file only: config_data_dir)
 */
#ifndef FD_SETTINGS_H
#define FD_SETTINGS_H

/* config_load - read the files; a malformed line is reported on stderr
 * (file and line) and skipped. Safe to call more than once. */
void config_load(void);

/* config_data_dir - the data folder of a setgid install, where its
 * databases must be: data_dir of /etc/frontdesk/config (an absolute path;
 * never a user's file), else the compiled-in FD_DATA_DIR
 * (/var/lib/frontdesk, configure --with-data-dir). */
const char *config_data_dir(void);

/* config_get - the value for key, or def when it is not set. */
const char *config_get(const char *key, const char *def);

/* config_get_int - the integer value for key, or def when unset or bad. */
long config_get_int(const char *key, long def);

/* config_free - forget everything loaded. */
void config_free(void);

#endif
