file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
file(WRITE ${OUT} "#include <string_view>\nnamespace warren::resources {\nstatic const char data[] = {${bytes} 0};\nextern const std::string_view ${SYMBOL};\nconst std::string_view ${SYMBOL}(data, sizeof(data) - 1);\n}\n")
