"""migrationFactory: a hospital's historical denials and open A/R moved from its old system, dry run first, committed all or nothing."""
