"""Human judgements that both corpora share: pair annotation files and the rules that combine
two annotators (:mod:`pairs`, Opusparcus), set annotation files (:mod:`sets`, TaPaCo), and the
web page on which annotators label either (:mod:`web`, the `serve` command of both programs)."""
