"""Media: the content-addressed store in the data folder, the records of each file, and the fetcher."""
