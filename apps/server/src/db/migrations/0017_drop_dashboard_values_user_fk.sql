ALTER TABLE "dashboard_values" DROP CONSTRAINT "dashboard_values_user_id_users_id_fk";
