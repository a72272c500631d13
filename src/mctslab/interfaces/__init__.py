"""What users touch: the command line, GTP/HTP, the web app, board and tree pictures."""
