# trash@mail.test: every message goes to Trash.
require "fileinto";
fileinto "Trash";
stop;
