"""The ground floor: what every app shares (the audit log, background jobs, one table writer,
permission names). It imports no app of the project."""
