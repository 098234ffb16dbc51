# archive@mail.test: every message goes to Archive.
require "fileinto";
fileinto "Archive";
stop;
