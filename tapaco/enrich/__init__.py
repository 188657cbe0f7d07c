"""Back-translation enrichment: translate the source side, pair outputs with references, filter."""
