package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/secretbox"
	"github.com/hitl-dev/hitl/internal/server"
)

func secretsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secrets",
		Short: "Manage the encryption of the secrets kept in the database",
		Long: `The secrets hitl keeps in its database (webhook secrets, chat webhook URLs, the callback and
answer-link secrets, the audit key) are encrypted with AES-256-GCM under HITL_SECRET_KEY when 'hitl serve' has it,
and stored in plaintext when it has not. See the README, section Secrets at rest.`,
	}
	cmd.AddCommand(secretsRotateCmd())
	return cmd
}

func secretsRotateCmd() *cobra.Command {
	var db, oldKey, newKey string
	cmd := &cobra.Command{
		Use:   "rotate --old KEY --new KEY",
		Short: "Re-encrypt the secrets in the database under a new key",
		Long: `Decrypt every secret in the database with --old and encrypt it again with --new, in one
transaction: either all of them change or none does. A KEY is what HITL_SECRET_KEY takes: the
path of a key file, or 32 bytes in base64 (openssl rand -base64 32).

Without --old, the secrets are taken to be in plaintext (a database served without
HITL_SECRET_KEY); without --new, they are decrypted and stored in plaintext again. A secret
already in plaintext is taken as it is. When --old does not decrypt them, this exits 1 and
changes nothing.

Stop every 'hitl serve' on the database first, and start them again with HITL_SECRET_KEY set
to the new key: a server still running with the old key can no longer read the secrets.`,
		Example: `  openssl rand -base64 32 > /etc/hitl/secret.key.new
  hitl secrets rotate --db /var/lib/hitl/hitl.db --old /etc/hitl/secret.key --new /etc/hitl/secret.key.new`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if oldKey == "" && newKey == "" {
				return usagef("give --new (the key to encrypt the secrets with), --old (the key they are encrypted with), or both")
			}
			from, err := secretbox.ParseKey(oldKey)
			if err != nil {
				return usagef("--old: %v", err)
			}
			to, err := secretbox.ParseKey(newKey)
			if err != nil {
				return usagef("--new: %v", err)
			}
			st, err := openExistingDB(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			n, err := engine.RotateSecrets(cmd.Context(), st, from, to, "--old")
			if err != nil {
				return err
			}
			name := server.Config{DB: db}
			if to == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "Decrypted %d secrets in %s: they are stored in plaintext now. Start hitl serve without HITL_SECRET_KEY.\n", n, name.DBName())
				return nil
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Encrypted %d secrets in %s under the new key. Start hitl serve with HITL_SECRET_KEY set to it.\n", n, name.DBName())
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", envOr("HITL_DB", server.DefaultDB()), "SQLite database file, or postgres:// URL (HITL_DB)")
	cmd.Flags().StringVar(&oldKey, "old", "", "the key the secrets are encrypted with now (a key file or base64); none: they are in plaintext")
	cmd.Flags().StringVar(&newKey, "new", "", "the key to encrypt them with (a key file or base64); none: store them in plaintext")
	return cmd
}
