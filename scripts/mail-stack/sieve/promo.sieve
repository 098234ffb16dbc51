# promo@mail.test: every message goes to Promotions.
require "fileinto";
fileinto "Promotions";
stop;
