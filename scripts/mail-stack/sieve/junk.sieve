# junk@mail.test: run the message through spamd (filter replaces the message
# with SpamAssassin's output, adding X-Spam-* headers), then file spam in Junk.
require ["vnd.dovecot.filter", "fileinto"];
filter "spamc";
if header :is "X-Spam-Flag" "YES" {
  fileinto "Junk";
  stop;
}
